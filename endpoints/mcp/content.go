package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// maxLinks bounds the resource links of one result that are read.
const maxLinks = 8

// result reads a tool's result: text parts as the task's text; images,
// audio and binary resources as files — each sniffed, and refused when
// its bytes are not what its declared type says; text resources as text
// under their URI; linked resources read from the server (resources/read)
// and kept the same way, web links left as links for later tasks to
// fetch through the trust rule; structured content as the task's data.
func (e *Endpoint) result(ctx context.Context, s *server, sess *sdk.ClientSession, req endpoints.Request, res *sdk.CallToolResult) (endpoints.Result, error) {
	var out endpoints.Result
	var texts []string
	keep := func(declared, what string, data []byte) {
		b, note := e.blob(declared, what, data)
		if note != "" {
			texts = append(texts, note)
			return
		}
		out.Blobs = append(out.Blobs, b)
	}
	resource := func(rc *sdk.ResourceContents, what string) {
		switch {
		case rc == nil:
		case rc.Blob != nil:
			keep(rc.MIMEType, what, rc.Blob)
		case rc.Text != "":
			texts = append(texts, fmt.Sprintf("%s (%s):\n%s", what, orText(rc.MIMEType), text.Clean(rc.Text)))
		}
	}
	links := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			if t := strings.TrimSpace(text.Clean(c.Text)); t != "" {
				texts = append(texts, t)
			}
		case *sdk.ImageContent:
			keep(c.MIMEType, "an image", c.Data)
		case *sdk.AudioContent:
			keep(c.MIMEType, "an audio clip", c.Data)
		case *sdk.EmbeddedResource:
			if c.Resource != nil {
				resource(c.Resource, "resource "+text.Clip(text.Clean(c.Resource.URI), 200))
			}
		case *sdk.ResourceLink:
			uri := text.Clip(text.Clean(c.URI), 500)
			if strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
				// A web address: a link in the result, which a later
				// task may fetch through the trust rule.
				texts = append(texts, linkText(c, uri))
				continue
			}
			if links >= maxLinks {
				texts = append(texts, linkText(c, uri)+" (not read: more than 8 links)")
				continue
			}
			links++
			rr, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: c.URI})
			if err != nil {
				if ctx.Err() != nil {
					out.Discard()
					return endpoints.Result{}, ctx.Err()
				}
				texts = append(texts, linkText(c, uri)+" (could not be read: "+text.OneLine(text.Clean(err.Error()), 160)+")")
				continue
			}
			for _, rc := range rr.Contents {
				if rc != nil && rc.MIMEType == "" {
					rc.MIMEType = c.MIMEType
				}
				resource(rc, "resource "+uri)
			}
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && string(b) != "null" {
			out.Data = text.CleanJSON(b)
			if len(texts) == 0 {
				texts = append(texts, string(out.Data))
			}
		}
	}
	out.Text = strings.Join(texts, "\n\n")
	_ = s
	return out, nil
}

// blob checks a file a tool returned: its bytes must be the kind its
// declared type says (an "image/png" that is a shell script is refused),
// and only images, audio and video are kept as files; anything else is
// named in the text and not kept.
func (e *Endpoint) blob(declared, what string, data []byte) (endpoints.Blob, string) {
	declared = strings.ToLower(strings.TrimSpace(declared))
	if mt, _, err := mime.ParseMediaType(declared); err == nil {
		declared = mt
	}
	sniffed, m := skills.Sniff(data)
	size := skills.HumanBytes(int64(len(data)))
	want := skills.ModalityOfMIME(declared)
	switch {
	case len(data) == 0:
		return endpoints.Blob{}, fmt.Sprintf("(%s with no data was left out)", what)
	case want.Media() && m != want && !(want == skills.Audio && sniffed == "video/webm"):
		return endpoints.Blob{}, fmt.Sprintf("(%s declared %s was not kept: its bytes are %s, %s)", what, declared, describe(sniffed, m), size)
	case !m.Media():
		if m == skills.Text && bytes.IndexByte(data, 0) < 0 && len(data) <= 64<<10 {
			return endpoints.Blob{}, fmt.Sprintf("%s (%s):\n%s", what, orText(declared), text.Clean(string(data)))
		}
		return endpoints.Blob{}, fmt.Sprintf("(%s, %s, %s, was not kept: Chorus keeps images, audio and video)", what, orText(declared), size)
	}
	return endpoints.Blob{MIME: sniffed, Data: data}, ""
}

func describe(mt string, m skills.Modality) string {
	switch {
	case mt == "application/json":
		return "JSON"
	case m == skills.Text:
		return "text"
	case mt != "":
		return mt
	}
	return "unrecognisable"
}

func orText(mt string) string {
	if mt == "" {
		return "no type given"
	}
	return mt
}

func linkText(c *sdk.ResourceLink, uri string) string {
	name := text.OneLine(text.Clean(c.Name), 80)
	if name == "" || name == uri {
		return "link: " + uri
	}
	return "link: " + name + " " + uri
}

// contentText joins the text parts of a result (an error's message).
func contentText(cs []sdk.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}
