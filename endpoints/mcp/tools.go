package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// toolSkill is the skill of one tool: named "<server>.<tool>", its
// description as the planner's brief, its inputSchema's properties as
// arguments (a property whose name or media type says image, audio or
// video is a file argument, sent as data), its outputs text plus the media
// its words promise, and one candidate: the tool on its server.
func toolSkill(cfg Server, t *sdk.Tool) *skills.Skill {
	info := toolInfo(cfg, t)
	name := info.Qualified()
	s := &skills.Skill{
		Name:        name,
		Description: description(t),
		Brief:       brief(t),
		Domain:      "mcp",
		HubTag:      skills.HubTagNone,
		Outputs:     outputsOf(t),
		Source:      "mcp:" + cfg.Name,
		Tool:        info,
		Models: []skills.Model{{ID: name, Description: fmt.Sprintf("tool %s of the MCP server %s", t.Name, cfg.Name),
			Endpoints: []skills.EndpointKind{skills.EndpointMCP}}},
	}
	for _, k := range paramOrder(info, schemaOf(t)) {
		p := info.Params[k]
		arg := skills.Arg{Name: k, Type: paramModality(p.Property, p.Schema), Optional: !slices.Contains(schemaOf(t).Required, p.Property)}
		if p.Schema != nil {
			arg.Description = text.OneLine(text.Clean(p.Schema.Description), 120)
		}
		s.Args = append(s.Args, arg)
	}
	return s
}

// toolInfo is what the pipeline needs of a tool: its arguments' schemas
// and its annotations.
func toolInfo(cfg Server, t *sdk.Tool) *skills.Tool {
	info := &skills.Tool{Server: cfg.Name, Name: t.Name, Title: text.OneLine(text.Clean(t.Title), 80), Params: map[string]skills.Param{},
		Trusted: cfg.Trust, TrustKey: cfg.key() + ".trust"}
	if a := t.Annotations; a != nil {
		info.ReadOnly = a.ReadOnlyHint
		info.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
		if info.Title == "" {
			info.Title = text.OneLine(text.Clean(a.Title), 80)
		}
	}
	sch := schemaOf(t)
	for prop, ps := range sch.Properties {
		k := strings.ToLower(prop)
		if _, dup := info.Params[k]; dup || !validToolName(prop) {
			// Two properties differing only in case, or a name no plan
			// could write: the tool's own default applies.
			continue
		}
		info.Params[k] = skills.Param{Property: prop, Schema: ps}
	}
	return info
}

// schemaOf reads a tool's inputSchema (a map from the wire) into the
// part of JSON Schema arguments use; a schema that does not read is one
// without properties.
func schemaOf(t *sdk.Tool) *skills.Schema {
	var s skills.Schema
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil {
			_ = json.Unmarshal(b, &s)
		}
	}
	return &s
}

// paramOrder is the required arguments in the schema's order, then the
// rest by name (the wire's object has no order of its own).
func paramOrder(info *skills.Tool, sch *skills.Schema) []string {
	var out []string
	for _, r := range sch.Required {
		k := strings.ToLower(r)
		if p, ok := info.Params[k]; ok && p.Property == r && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	var rest []string
	for k := range info.Params {
		if !slices.Contains(out, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// description is the tool's description, cleaned: it is the server's
// text, shown to the planner and the user.
func description(t *sdk.Tool) string {
	d := strings.TrimSpace(text.Clean(t.Description))
	if d == "" {
		d = strings.TrimSpace(text.Clean(t.Title))
	}
	if d == "" {
		d = "the tool " + t.Name
	}
	if r := []rune(d); len(r) > 1000 {
		d = string(r[:999]) + "…"
	}
	return d
}

// brief is the tool in one line of at most 100 bytes, for the planner.
func brief(t *sdk.Tool) string {
	d := strings.Join(strings.Fields(description(t)), " ")
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i]
	}
	d = strings.TrimSuffix(d, ".")
	if len(d) > 100 {
		cut := 97
		for cut > 0 && (d[cut]&0xC0) == 0x80 {
			cut--
		}
		d = d[:cut] + "…"
	}
	return d
}

// mediaWords tell a file argument or a media output by its words.
var mediaWords = map[skills.Modality][]string{
	skills.Image: {"image", "img", "photo", "picture", "png", "jpeg", "jpg", "logo", "screenshot"},
	skills.Audio: {"audio", "sound", "speech", "wav", "mp3", "music"},
	skills.Video: {"video", "mp4", "movie"},
}

// notFile are words that make an "image…" property a description of
// one, not the file itself ("image_prompt", "image_size").
var notFile = []string{"prompt", "description", "caption", "text", "title", "name", "id", "size", "width", "height",
	"count", "num", "format", "type", "style", "mode", "quality", "seed", "steps", "includeimage", "include"}

// paramModality is the modality of a tool's argument: a string property
// whose media type (contentMediaType) or name says image, audio or video
// is a file; everything else is text (numbers, booleans and lists are
// written as text in the plan and converted to the schema).
func paramModality(prop string, sch *skills.Schema) skills.Modality {
	if sch != nil {
		if m := skills.ModalityOfMIME(sch.ContentMediaType); m.Media() {
			return m
		}
		if k := sch.Kind(); k != "" && k != "string" {
			return skills.Text
		}
	}
	words := text.Words(prop)
	for _, w := range words {
		if slices.Contains(notFile, w) {
			return skills.Text
		}
	}
	for _, m := range []skills.Modality{skills.Image, skills.Audio, skills.Video} {
		for _, w := range words {
			if slices.Contains(mediaWords[m], w) {
				return m
			}
		}
	}
	return skills.Text
}

// outputsOf is text, plus the media the tool's name, title or
// description speak of ("Returns a tiny MCP logo image").
func outputsOf(t *sdk.Tool) []skills.Modality {
	out := []skills.Modality{skills.Text}
	words := text.Words(t.Name + " " + t.Title + " " + t.Description)
	for _, m := range []skills.Modality{skills.Image, skills.Audio, skills.Video} {
		for _, w := range words {
			if slices.Contains(mediaWords[m], w) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}
