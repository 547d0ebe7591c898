package huggingface

import (
	"context"
	"errors"
	"slices"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
)

// The Inference Providers Chorus speaks (endpoints.InferenceProviders),
// by the names the Hub and the router use, and the "auto" policy.
const (
	ProviderHFInference = endpoints.ProviderHFInference
	ProviderFalAI       = endpoints.ProviderFalAI
	ProviderReplicate   = endpoints.ProviderReplicate
	ProviderTogether    = endpoints.ProviderTogether
	ProviderNebius      = endpoints.ProviderNebius
	ProviderAuto        = endpoints.ProviderAuto
)

// ErrPaymentRequired marks an HTTP 402: the account's Inference Providers
// credits are used up. Every provider's calls are billed to the same
// account, so the endpoint stops trying providers after one (and Check
// says so for a while); it is filed under endpoints.ErrUnauthorized.
var ErrPaymentRequired = errors.New("inference providers: payment required")

// protocol runs req on one provider under r.id, the provider's id for
// the model. It returns what the model produced, or an error wrapping the
// endpoints sentinels that names the provider.
type protocol func(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error)

// chatTasks are the text tasks sent as chat completions.
var chatTasks = []string{"conversational", "text-generation", "social-media-post"}

// providerTasks is, for every provider but hf-inference (whose tasks are
// hfapi's), the protocol of each task it runs — the routes and payloads
// of the official client's provider helpers.
var providerTasks = map[string]map[string]protocol{
	ProviderFalAI: {
		"text-to-image":                falQueueImage,
		"image-to-image":               falQueueImage,
		"image-editing":                falQueueImage,
		"text-to-video":                falQueueVideo,
		"text-to-speech":               falSpeech,
		"automatic-speech-recognition": falTranscribe,
	},
	ProviderReplicate: {
		"text-to-image":                replicatePredict,
		"image-to-image":               replicatePredict,
		"image-editing":                replicatePredict,
		"text-to-video":                replicatePredict,
		"text-to-speech":               replicatePredict,
		"automatic-speech-recognition": replicatePredict,
	},
	ProviderTogether: {
		"text-to-image":     generateImages,
		"image-to-image":    generateImages,
		"image-editing":     generateImages,
		"conversational":    chatCompletion,
		"text-generation":   chatCompletion,
		"social-media-post": chatCompletion,
	},
	ProviderNebius: {
		"text-to-image":     generateImages,
		"conversational":    chatCompletion,
		"text-generation":   chatCompletion,
		"social-media-post": chatCompletion,
	},
}

// protocolFor returns how provider runs task, or nil when Chorus cannot
// send task to provider.
func protocolFor(provider, task string) protocol {
	switch provider {
	case ProviderHFInference:
		if hfapi.Supported(task) && !hfapi.IsControlNetTask(task) {
			return hfInference
		}
		return nil
	case ProviderAuto:
		if slices.Contains(chatTasks, task) {
			return chatCompletion
		}
		return nil
	}
	return providerTasks[provider][task]
}

// servesTask reports whether some provider Chorus speaks can run task.
func servesTask(task string) bool {
	for _, p := range endpoints.InferenceProviders {
		if protocolFor(p, task) != nil {
			return true
		}
	}
	return false
}

// hubTasks are the Hub tasks a mapping may name for a Chorus task: a
// provider that serves a model for one of them serves it for the task.
func hubTasks(task string) []string {
	switch task {
	case "conversational", "text-generation", "social-media-post":
		return []string{"conversational", "text-generation"}
	case "image-to-image", "image-editing":
		return []string{"image-to-image", "image-text-to-image"}
	case "text-to-speech":
		return []string{"text-to-speech", "text-to-audio"}
	}
	return []string{task}
}

// hfInference runs the model on Hugging Face's own provider, whose
// payloads are the Inference API's.
func hfInference(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	return e.c.inferAPI(ctx, req, e.c.base+"/"+ProviderHFInference, r.id, ProviderHFInference)
}
