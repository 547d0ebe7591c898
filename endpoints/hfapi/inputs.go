package hfapi

import (
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// textArg returns a required text argument.
func textArg(task string, args map[string]string, name string) (string, error) {
	v := strings.TrimSpace(args[name])
	if v == "" {
		return "", badInput("%s needs a %q argument", task, name)
	}
	return args[name], nil
}

// readMedia reads the file of a media argument and returns its bytes and
// MIME type. Only a file in req.Files — one that passed the turn's trust
// rule — is read; the path in req.Args is for messages.
func readMedia(req endpoints.Request, name string) ([]byte, string, error) {
	task := req.Task
	p := strings.TrimSpace(req.Args[name])
	f, ok := req.Files[name]
	if !ok || f.IsZero() {
		switch {
		case p == "":
			return nil, "", badInput("%s needs an %q argument (a file path)", task, name)
		case strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://"):
			return nil, "", badInput("%s argument %s=%q is a URL; give a local file path (download it first)", task, name, p)
		}
		_, err := req.File(name, "")
		return nil, "", err
	}
	if p == "" {
		p = f.Asked()
	}
	// The checked path is stat'ed first for the precise complaint; the
	// read below goes through File.Open, which judges what it opened.
	st, err := os.Stat(f.Path())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", badInput("%s file %s does not exist", name, p)
	case err != nil:
		return nil, "", badInput("cannot read %s file %s: %v", name, p, err)
	case st.IsDir():
		return nil, "", badInput("%s file %s is a directory, not a file", name, p)
	case !st.Mode().IsRegular():
		// Reading a FIFO or a device could block forever or never end.
		return nil, "", badInput("%s %s is not a regular file (a pipe or device) — give a file", name, p)
	case st.Size() > maxUpload:
		return nil, "", badInput("%s file %s is %s; Chorus sends at most %d MB to an inference server — trim or compress it first", name, p, skills.HumanBytes(st.Size()), maxUpload>>20)
	}
	data, err := f.ReadAll(maxUpload)
	if err != nil {
		return nil, "", badInput("cannot read %s file %s: %v", name, p, err)
	}
	if len(data) == 0 {
		return nil, "", badInput("%s file %s is empty", name, p)
	}
	mt := MediaType(p, data)
	if want := mediaKind(name) + "/"; want != "/" && mt != "application/octet-stream" &&
		!strings.HasPrefix(mt, want) && !(want == "audio/" && mt == "video/webm") {
		return nil, "", badInput("%s file %s is %s, not %s", name, p, mt, strings.TrimSuffix(want, "/"))
	}
	return data, mt, nil
}

// mediaKind is the kind of file a media argument takes: its name, or
// image for a mask.
func mediaKind(name string) string {
	switch name {
	case "image", "audio", "video":
		return name
	case "mask":
		return "image"
	}
	return ""
}

// maxUpload bounds a media file read into memory for one request; like
// an answer's size, more is refused rather than held.
const maxUpload = 512 << 20

// MediaType names the type of a media file: the content sniffed when it is
// recognisable media, else the type its name says (skills' file-type
// table), else text when it is text.
func MediaType(path string, data []byte) string {
	mt, m := skills.Sniff(data)
	if m.Media() {
		return mt
	}
	if byName := skills.MIMEOfName(path); byName != "" {
		if nm, _ := skills.ModalityOfName(path); nm.Media() {
			return byName
		}
	}
	if m == skills.Text {
		return mt
	}
	return "application/octet-stream"
}

func base64Of(data []byte) string { return base64.StdEncoding.EncodeToString(data) }

// splitList splits a list argument on sep, dropping empty items.
func splitList(s, sep string) []string {
	var out []string
	for _, item := range strings.Split(s, sep) {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parseNumbers parses "x,y" or "x1,y1,x2,y2" with exactly n numbers.
func parseNumbers(task, name, s string, n int) ([]float64, error) {
	parts := splitList(s, ",")
	if len(parts) != n {
		return nil, badInput("%s argument %s=%q needs %d comma-separated numbers", task, name, s, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, badInput("%s argument %s=%q: %q is not a number", task, name, s, p)
		}
		out[i] = f
	}
	return out, nil
}

// parseTable turns a table written as CSV (a header row, then rows) or JSON (an
// object of columns, or a list of row objects) into the column map
// tabular models take: {"column": ["value", …]}.
func parseTable(text string) (map[string][]string, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return parseTableJSON(t)
	}
	r := csv.NewReader(strings.NewReader(t))
	r.TrimLeadingSpace = true
	rows, err := r.ReadAll()
	if err != nil {
		return nil, badInput("tabular-classification: the table is not valid CSV: %v", err)
	}
	if len(rows) < 2 {
		return nil, badInput("tabular-classification: the table needs a header row and at least one data row")
	}
	out := map[string][]string{}
	for _, row := range rows[1:] {
		for i, col := range rows[0] {
			out[col] = append(out[col], row[i])
		}
	}
	return out, nil
}

func parseTableJSON(t string) (map[string][]string, error) {
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, badInput("tabular-classification: the table is not valid JSON: %v", err)
	}
	cell := func(x any) string {
		switch x := x.(type) {
		case string:
			return x
		case nil:
			return ""
		default:
			return fmt.Sprint(x)
		}
	}
	out := map[string][]string{}
	switch v := v.(type) {
	case map[string]any:
		if data, ok := v["data"].(map[string]any); ok && len(v) == 1 {
			v = data
		}
		n := -1
		for col, vals := range v {
			list, ok := vals.([]any)
			if !ok {
				list = []any{vals}
			}
			if n >= 0 && len(list) != n {
				return nil, badInput("tabular-classification: column %q has %d values, others have %d", col, len(list), n)
			}
			n = len(list)
			for _, x := range list {
				out[col] = append(out[col], cell(x))
			}
		}
	case []any:
		var cols []string
		for i, row := range v {
			obj, ok := row.(map[string]any)
			if !ok {
				return nil, badInput("tabular-classification: row %d is not an object of column values", i+1)
			}
			if i == 0 {
				for col := range obj {
					cols = append(cols, col)
				}
			}
			for _, col := range cols {
				out[col] = append(out[col], cell(obj[col]))
			}
		}
	}
	if len(out) == 0 {
		return nil, badInput("tabular-classification: the table is empty")
	}
	return out, nil
}
