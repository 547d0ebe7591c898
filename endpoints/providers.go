package endpoints

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The Inference Providers behind Hugging Face's router that the
// huggingface kind calls, by the names the Hub and the router use, and
// the "auto" policy. They live in the contract so the configuration can
// check huggingface.providers without knowing the kind.
const (
	// ProviderHFInference is Hugging Face's own provider.
	ProviderHFInference = "hf-inference"
	// ProviderFalAI is fal.ai: images and video on its queue, speech.
	ProviderFalAI = "fal-ai"
	// ProviderReplicate is Replicate: predictions.
	ProviderReplicate = "replicate"
	// ProviderTogether is Together AI: images and chat.
	ProviderTogether = "together"
	// ProviderNebius is Nebius AI Studio: images and chat.
	ProviderNebius = "nebius"
	// ProviderAuto is the default policy: the providers that serve a
	// model in the order the Hub lists them, which is the user's order
	// from https://hf.co/settings/inference-providers, as the official
	// client's provider "auto"; for chat, the router's own choice.
	ProviderAuto = "auto"
)

// InferenceProviders lists the providers huggingface.providers may name,
// besides "auto".
var InferenceProviders = []string{ProviderHFInference, ProviderFalAI, ProviderReplicate, ProviderTogether, ProviderNebius}

// ParseProviders reads a huggingface.providers list: provider names or
// "auto", each once, in the order they are tried; one entry may hold
// several separated by commas or spaces (an environment variable). Names
// are lower-cased; an empty list is [auto].
func ParseProviders(list []string) ([]string, error) {
	var out []string
	for _, entry := range list {
		for _, p := range strings.FieldsFunc(entry, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			p = strings.ToLower(p)
			switch {
			case slices.Contains(out, p):
				return nil, fmt.Errorf("%s is listed twice", p)
			case p != ProviderAuto && !slices.Contains(InferenceProviders, p):
				return nil, fmt.Errorf("unknown provider %q (Chorus speaks %s, and auto for the rest in your Hub order)", p, strings.Join(InferenceProviders, ", "))
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		if len(list) > 0 {
			return nil, errors.New("an empty provider name")
		}
		return []string{ProviderAuto}, nil
	}
	return out, nil
}
