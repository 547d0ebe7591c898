package endpoints

// SocialPostBrief is the system prompt for social-media-post, for every
// endpoint that serves it with a chat model, so a post reads the same
// whichever endpoint wrote it.
const SocialPostBrief = "You write social-media posts. From the user's description (often an image caption) and any " +
	"wishes on tone or platform, write one short, engaging post: a hook in the first line, a sentence or two, and " +
	"three to five relevant hashtags at the end. Reply with the post only."
