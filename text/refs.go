package text

import "regexp"

// resourceRef matches a plan's reference to an earlier task's output,
// "<resource>-N", and the "<GENERATED>-N" spelling of HuggingGPT's demos
// (the pipeline reads the same syntax).
var resourceRef = regexp.MustCompile(`<(?i:resource|generated)>-(\d+)`)

// ShowRefs writes every "<resource>-N" in s as "→#N", the way Chorus shows a
// person a reference to task N's output (the Plan pane, the answer).
// Markdown renderers take "<resource>" for an HTML tag and drop it, leaving
// "uses -0"; the raw text, which a program may parse, keeps the plan's form.
func ShowRefs(s string) string {
	return resourceRef.ReplaceAllString(s, "→#$1")
}
