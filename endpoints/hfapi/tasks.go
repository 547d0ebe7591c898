package hfapi

import (
	"encoding/json"

	"github.com/chorusai/chorus/endpoints"
)

// taskSpec is how one task travels over the Inference API.
type taskSpec struct {
	// build makes the request from the planner's arguments and the
	// request's checked files.
	build func(req endpoints.Request) (Request, error)
	// read maps the answer's JSON onto a Result; files inside it are
	// decoded through the spool.
	read func(args map[string]string, data json.RawMessage, spool endpoints.Spool) (endpoints.Result, error)
	// binary marks tasks that may answer with a file body instead of JSON.
	binary bool
}

// tasks is the wire format, one row per task Chorus can send to a server
// speaking the Inference API; a task without a row is unsupported.
var tasks = map[string]taskSpec{
	// Text in, {"inputs": text}.
	"text-classification":  {build: textInputs, read: readLabels},
	"token-classification": {build: textInputs, read: readEntities},
	"text2text-generation": {build: textInputs, read: readGeneratedText},
	"summarization":        {build: textInputs, read: readSummary},
	"text-to-image":        {build: textInputs, read: readImages, binary: true},
	"text-to-speech":       {build: textInputs, read: readMediaBody, binary: true},
	"text-to-video":        {build: textInputs, read: readMediaBody, binary: true},
	"translation":          {build: buildTranslation, read: readTranslation},
	"question-answering":   {build: buildQuestionAnswering, read: readAnswer},
	// Chat models are served through the OpenAI-compatible route, for text
	// generation too (as the official client sends it); a social-media
	// post is a chat turn with the copywriter's brief.
	"conversational":         {build: buildChat, read: readChat},
	"text-generation":        {build: buildChat, read: readChat},
	"social-media-post":      {build: buildChat, read: readChat},
	"sentence-similarity":    {build: buildSentenceSimilarity, read: readSimilarity},
	"tabular-classification": {build: buildTabular, read: readTabular},

	// A media file in, as raw bytes with its Content-Type. OCR models
	// (TrOCR, Donut) are image-to-text pipelines on the Hub.
	"image-classification":         {build: rawMedia("image"), read: readLabels},
	"object-detection":             {build: rawMedia("image"), read: readDetections},
	"image-to-text":                {build: rawMedia("image"), read: readGeneratedText},
	"ocr":                          {build: rawMedia("image"), read: readGeneratedText},
	"depth-estimation":             {build: rawMedia("image"), read: readDepth, binary: true},
	"automatic-speech-recognition": {build: rawMedia("audio"), read: readTranscript},
	"audio-classification":         {build: rawMedia("audio"), read: readLabels},
	"audio-to-audio":               {build: rawMedia("audio"), read: readAudios},
	"video-classification":         {build: rawMedia("video"), read: readLabels},

	// An image in JSON, base64, with parameters.
	"image-segmentation":             {build: buildSegmentation, read: readMasks},
	"image-to-image":                 {build: buildImageToImage, read: readImages, binary: true},
	"image-editing":                  {build: buildImageToImage, read: readImages, binary: true},
	"zero-shot-image-classification": {build: buildZeroShotImage, read: readLabels},
	"zero-shot-object-detection":     {build: buildZeroShotImage, read: readDetections},
	"visual-question-answering":      {build: buildImageQuestion, read: readAnswer},
	"document-question-answering":    {build: buildImageQuestion, read: readAnswer},
	"mask-generation":                {build: buildMaskGeneration, read: readMasks},
}
