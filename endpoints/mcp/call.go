package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// Infer calls the tool: the task's arguments converted to its
// inputSchema (files as embedded data), its progress reported, the call
// cancelled with MCP's notifications/cancelled when the task's context
// ends, and its result read into text, structured data and files.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	s, name, ok := e.split(req.Model)
	if !ok {
		return endpoints.Result{}, failf(endpoints.ErrUnavailable, "%s is not a tool of a configured MCP server", req.Model)
	}
	s = e.chatServer(s, req.Chat, req.Workspace)
	sess, err := s.session(ctx)
	if err != nil {
		return endpoints.Result{}, err
	}
	t, err := s.tool(name)
	if err != nil {
		return endpoints.Result{}, err
	}
	var args map[string]any
	if req.Task == req.Model {
		args, err = e.directArgs(toolInfo(s.cfg, t), t, req)
	} else {
		var missing string
		args, missing = taskArgs(req.Task, t, &req, e.encoder(req))
		if missing != "" {
			err = failf(endpoints.ErrUnavailable, "%s needs the argument %q, which %s does not give — map another tool onto %s", req.Model, missing, req.Task, req.Task)
		} else if f := e.encodeErr(req); f != nil {
			err = f
		}
	}
	if err != nil {
		return endpoints.Result{}, err
	}

	params := &sdk.CallToolParams{Name: name, Arguments: args}
	token := s.token()
	params.SetProgressToken(token)
	if req.Progress != nil {
		// A notification the SDK hands over after the call returned is
		// dropped: the task has ended by then.
		var mu sync.Mutex
		done := false
		s.progress.Store(token, func(p *sdk.ProgressNotificationParams) {
			mu.Lock()
			defer mu.Unlock()
			if !done {
				req.Progress(endpoints.Progress{Message: progressText(req.Model, p)})
			}
		})
		defer func() {
			mu.Lock()
			done = true
			mu.Unlock()
			s.progress.Delete(token)
		}()
	}
	e.opts.Logger.Info("mcp call", "server", s.cfg.Name, "tool", name)
	var res *sdk.CallToolResult
	err = s.withRoots(ctx, req.Roots, func() (err error) {
		res, err = sess.CallTool(ctx, params)
		return err
	})
	if err != nil {
		return endpoints.Result{}, e.callError(ctx, s, sess, req, err)
	}
	if res.IsError {
		msg := text.OneLine(text.Clean(contentText(res.Content)), 300)
		if msg == "" {
			msg = "no message"
		}
		return endpoints.Result{}, failf(endpoints.ErrUnavailable, "%s reported an error: %s", req.Model, msg)
	}
	return e.result(ctx, s, sess, req, res)
}

// callError explains a failed call: the server stopped (and how), a
// message over the bound, output that is not MCP, arguments it refused.
func (e *Endpoint) callError(ctx context.Context, s *server, sess *sdk.ClientSession, req endpoints.Request, err error) error {
	if ctx.Err() != nil {
		// The SDK has sent notifications/cancelled; the executor says
		// whether the turn was cancelled or the task ran out of time.
		return ctx.Err()
	}
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if why := ended.get(); why != nil && (s.cfg.Stdio() || errors.Is(err, sdk.ErrConnectionClosed) || strings.Contains(why.Error(), "limit for one message")) {
		failure := failf(endpoints.ErrUnavailable, "the MCP server %s stopped during the call to %s: %v", s.cfg.Name, req.Model, why)
		s.drop(sess, failure)
		return failure
	}
	if strings.Contains(err.Error(), "SSE event exceeded") {
		failure := failf(endpoints.ErrUnavailable, "the MCP server %s stopped during the call to %s: %v", s.cfg.Name, req.Model, tooLarge(int64(e.opts.MaxMessage)))
		s.drop(sess, failure)
		return failure
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		msg := text.OneLine(text.Clean(we.Message), 300)
		if we.Code == jsonrpc.CodeInvalidParams && req.Task == req.Model {
			return failf(endpoints.ErrBadInput, "%s refused the arguments: %s", req.Model, msg)
		}
		return failf(endpoints.ErrUnavailable, "%s failed: %s", req.Model, msg)
	}
	if errors.Is(err, sdk.ErrConnectionClosed) {
		why := errors.New("the connection closed")
		if s.cfg.Stdio() {
			why = errors.New("it closed its output")
		}
		failure := failf(endpoints.ErrUnavailable, "the MCP server %s stopped during the call to %s: %v", s.cfg.Name, req.Model, why)
		s.drop(sess, failure)
		return failure
	}
	return failf(endpoints.ErrUnavailable, "%s failed: %s", req.Model, text.OneLine(text.Clean(err.Error()), 300))
}

// progressText renders a progress notification: "3 of 5", its message.
func progressText(tool string, p *sdk.ProgressNotificationParams) string {
	var b strings.Builder
	b.WriteString(tool + ": ")
	switch {
	case p.Total > 0:
		fmt.Fprintf(&b, "%g of %g", p.Progress, p.Total)
	default:
		fmt.Fprintf(&b, "%g done", p.Progress)
	}
	if m := text.OneLine(text.Clean(p.Message), 120); m != "" {
		b.WriteString(" — " + m)
	}
	return b.String()
}

// directArgs are the arguments of a call of the tool as its own skill:
// each converted to its schema (the validator did it before the plan ran;
// a <resource>-N has since become a value, checked here), a file argument
// sent as data.
func (e *Endpoint) directArgs(info *skills.Tool, t *sdk.Tool, req endpoints.Request) (map[string]any, error) {
	text := map[string]string{}
	media := map[string]skills.Modality{}
	for k, p := range info.Params {
		if m := paramModality(p.Property, p.Schema); m.Media() {
			media[k] = m
			continue
		}
		if v, ok := req.Args[k]; ok {
			text[k] = v
		}
	}
	args, _, err := info.ConvertArgs(text)
	if err != nil {
		return nil, failf(endpoints.ErrBadInput, "%s: %v", req.Model, err)
	}
	for k, m := range media {
		if _, given := req.Args[k]; !given {
			continue
		}
		f, err := req.File(k, "the "+string(m)+" for "+req.Model)
		if err != nil {
			return nil, err
		}
		v, err := encodeFile(f, info.Params[k].Schema, e.opts.MaxInput)
		if err != nil {
			return nil, failf(endpoints.ErrBadInput, "argument %s: %v", k, err)
		}
		args[info.Params[k].Property] = v
	}
	for _, r := range schemaOf(t).Required {
		if _, ok := args[r]; !ok {
			return nil, failf(endpoints.ErrBadInput, "%s needs the argument %q", req.Model, strings.ToLower(r))
		}
	}
	return args, nil
}

// textNames are the properties that take a task's main text.
var textNames = []string{"text", "prompt", "query", "input", "message", "question", "sentence", "instruction", "caption", "content", "q"}

// taskArgs fills a tool's arguments from a task it is mapped onto: a file
// argument from the task's file of that modality, a property named like
// one of the task's arguments from it, and the first text-like property
// from the task's text. missing names a required property left empty
// (with no default). With req nil it only says whether the tool can fit.
func taskArgs(task string, t *sdk.Tool, req *endpoints.Request, enc func(string, *skills.Schema, skills.Modality) (any, bool)) (map[string]any, string) {
	sch := schemaOf(t)
	args := map[string]any{}
	props := make([]string, 0, len(sch.Properties))
	for p := range sch.Properties {
		props = append(props, p)
	}
	// Required ones first, in order, so the task's text fills the main one.
	slices.SortStableFunc(props, func(a, b string) int {
		ia, ib := slices.Index(sch.Required, a), slices.Index(sch.Required, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	textUsed := false
	has := func(name string) (string, bool) {
		if req == nil {
			return "", name == "text" || name == "image" || name == "audio" || name == "video"
		}
		v, ok := req.Args[name]
		return v, ok && strings.TrimSpace(v) != ""
	}
	for _, p := range props {
		ps := sch.Properties[p]
		lower := strings.ToLower(p)
		if m := paramModality(p, ps); m.Media() {
			for _, from := range []string{lower, string(m), "mask"} {
				if from == "mask" && lower != "mask" {
					continue
				}
				if _, ok := has(from); ok {
					if req == nil {
						args[p] = true
					} else if v, ok := enc(from, ps, m); ok {
						args[p] = v
					}
					break
				}
			}
			continue
		}
		from := ""
		if _, ok := has(lower); ok && lower != "text" {
			from = lower
		} else if !textUsed && (slices.Contains(textNames, lower) || slices.Contains(sch.Required, p) && ps.Kind() == "string") {
			if _, ok := has("text"); ok {
				from, textUsed = "text", true
			}
		}
		if from == "" {
			continue
		}
		if req == nil {
			args[p] = true
			continue
		}
		v, _, err := ps.Convert(req.Args[from])
		if err != nil {
			continue
		}
		args[p] = v
	}
	for _, r := range sch.Required {
		if _, ok := args[r]; !ok {
			if ps := sch.Properties[r]; ps != nil && ps.Default != nil {
				// Sent, not left out: a server that checks its
				// required arguments refuses a call without it.
				if req != nil {
					args[r] = ps.Default
				}
				continue
			}
			return nil, strings.ToLower(r)
		}
	}
	return args, ""
}

// encoder returns the function taskArgs sends a task's file with; a
// failure is kept for encodeErr.
func (e *Endpoint) encoder(req endpoints.Request) func(string, *skills.Schema, skills.Modality) (any, bool) {
	return func(name string, sch *skills.Schema, m skills.Modality) (any, bool) {
		f, err := req.File(name, "the "+string(m))
		if err != nil {
			return nil, false
		}
		v, err := encodeFile(f, sch, e.opts.MaxInput)
		if err != nil {
			return nil, false
		}
		return v, true
	}
}

// encodeErr says why a task's file could not be sent, if one could not.
func (e *Endpoint) encodeErr(req endpoints.Request) error {
	for name, f := range req.Files {
		if _, err := f.ReadAll(e.opts.MaxInput); err != nil {
			return failf(endpoints.ErrBadInput, "argument %s: %v", name, err)
		}
	}
	return nil
}

// encodeFile sends a checked file as data — never its path: base64 when
// the schema says contentEncoding base64, else a data URL with its type.
func encodeFile(f scope.File, sch *skills.Schema, limit int64) (string, error) {
	b, err := f.ReadAll(limit)
	if errors.Is(err, scope.ErrTooLarge) {
		return "", fmt.Errorf("%s is over %s, the most Chorus sends to a tool", f.Asked(), skills.HumanBytes(limit))
	}
	if err != nil {
		return "", err
	}
	enc := base64.StdEncoding.EncodeToString(b)
	if sch != nil && strings.EqualFold(sch.ContentEncoding, "base64") {
		return enc, nil
	}
	mt, _ := skills.Sniff(b)
	if mt == "" {
		mt = "application/octet-stream"
	}
	return "data:" + mt + ";base64," + enc, nil
}
