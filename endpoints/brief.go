package endpoints

// SocialPostBrief is the system prompt for social-media-post, for every
// endpoint that serves it with a chat model, so a post reads the same
// whichever endpoint wrote it.
const SocialPostBrief = "You write social-media posts. From the user's description (often an image caption) and any " +
	"wishes on tone or platform, write one short, engaging post: a hook in the first line, a sentence or two, and " +
	"three to five relevant hashtags at the end. Reply with the post only."

// Briefs for the tasks chat models serve on several endpoint kinds (Ollama,
// OpenAI-compatible servers), so a caption or a summary is asked for the
// same way whichever server writes it.
const (
	// CaptionBrief is the system prompt for image-to-text.
	CaptionBrief = "You are an image captioning model. Describe the attached image in one or two plain sentences: " +
		"the main subjects, what they are doing and the setting. No preamble, no lists, no markdown."
	// VQABrief is the system prompt for visual-question-answering.
	VQABrief = "You answer questions about the attached image. Answer briefly and directly from what is visible. " +
		"If the image does not show the answer, say so instead of guessing."
	// DocQABrief is the system prompt for document-question-answering.
	DocQABrief = "The attached image is a document: a scan, form, receipt, slide or page. Answer the question using only " +
		"what the document says, quoting names, dates and amounts exactly as written. If the document does not " +
		"contain the answer, say that it does not."
	// OCRBrief is the system prompt for ocr with a vision model.
	OCRBrief = "You are an OCR engine. Transcribe all text visible in the attached image exactly, keeping line breaks " +
		"and reading order. Output only the text; if there is none, output nothing."
	// SummaryBrief is the system prompt for summarization.
	SummaryBrief = "Summarise the user's text in a few sentences, keeping its main points, names and figures. " +
		"Write in the text's language. Reply with the summary only."
	// TextGenerationBrief is the system prompt for text-generation.
	TextGenerationBrief = "Write the text the user asks for, or continue the user's text if it is unfinished. Reply with the text only."
	// QABrief is the system prompt for question-answering from a passage.
	QABrief = "Answer the question using only the context. Reply with the shortest exact span of the context that answers it, " +
		"copied verbatim, and nothing else. If the context does not contain the answer, reply: unknown"
	// Text2TextBrief is the system prompt for text2text-generation.
	Text2TextBrief = "Carry out the instruction in the user's text and reply with the result only."
)
