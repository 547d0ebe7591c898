package fakeollama

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Capabilities as /api/show reports them.
const (
	CapCompletion = "completion"
	CapVision     = "vision"
	CapTools      = "tools"
	CapThinking   = "thinking"
	CapEmbedding  = "embedding"
	CapInsert     = "insert"
)

// Model is a model the fake has "pulled". Zero fields get realistic
// defaults when the model is added.
type Model struct {
	// Name as the user pulled it: "llava:7b", "qwen3" (":latest" is added).
	Name string
	// Capabilities are reported by /api/show and enforced by /api/chat and
	// /api/generate; default ["completion"].
	Capabilities []string
	// Family is the architecture ("llama", "qwen3", "clip"); default "llama".
	Family   string
	Families []string
	// ParameterSize is the details' human count ("7B", "567M").
	ParameterSize string
	// QuantizationLevel such as "Q4_K_M"; default "Q4_K_M".
	QuantizationLevel string
	// Size is the bytes on disk /api/tags reports; default estimated from
	// ParameterSize.
	Size int64
	// ContextLength is the trained context, reported in model_info.
	ContextLength int
	// License is the licence text /api/show returns.
	License    string
	ModifiedAt time.Time
	Digest     string
}

func (m Model) has(c string) bool { return slices.Contains(m.Capabilities, c) }

// withDefaults fills zero fields the way a freshly pulled model looks.
func (m Model) withDefaults() Model {
	m.Name = displayName(m.Name)
	if len(m.Capabilities) == 0 {
		m.Capabilities = []string{CapCompletion}
	}
	m.Family = cmp.Or(m.Family, "llama")
	if len(m.Families) == 0 {
		m.Families = []string{m.Family}
		if m.has(CapVision) {
			m.Families = append(m.Families, "clip")
		}
	}
	m.QuantizationLevel = cmp.Or(m.QuantizationLevel, "Q4_K_M")
	if m.ParameterSize == "" {
		m.ParameterSize = "7B"
	}
	if m.Size == 0 {
		m.Size = parseParams(m.ParameterSize) * 6 / 10 // ~4.8 bits per weight
	}
	if m.ContextLength == 0 {
		m.ContextLength = 32768
	}
	if m.ModifiedAt.IsZero() {
		m.ModifiedAt = time.Now().UTC()
	}
	if m.Digest == "" {
		sum := sha256.Sum256([]byte(m.Name))
		m.Digest = hex.EncodeToString(sum[:])
	}
	return m
}

// AddModel makes m pulled: listed by /api/tags and served by the others.
// Adding a name again replaces the model.
func (s *Server) AddModel(m Model) {
	m = m.withDefaults()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models[key(m.Name)] = &m
}

// RemoveModel deletes a model, as `ollama rm` would.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, key(name))
	delete(s.loaded, key(name))
}

// Models returns the pulled models' names, sorted.
func (s *Server) Models() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.models {
		out = append(out, m.Name)
	}
	slices.Sort(out)
	return out
}

func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.models[key(name)]
	if !ok {
		return Model{}, false
	}
	return *m, true
}

var namePart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// validName approximates model.ParseName(...).IsValid.
func validName(name string) bool {
	n := displayName(name)
	path, tag, _ := strings.Cut(n, ":")
	if tag == "" || len(tag) > 80 || !namePart.MatchString(tag) {
		return false
	}
	for _, p := range strings.Split(path, "/") {
		if !namePart.MatchString(p) {
			return false
		}
	}
	return true
}

// displayName is model.Name.DisplayShortest: the default registry and the
// "library" namespace dropped, the tag always present.
func displayName(name string) string {
	n := strings.TrimSpace(name)
	n = strings.TrimPrefix(n, "registry.ollama.ai/")
	n = strings.TrimPrefix(n, "library/")
	slash := strings.LastIndex(n, "/")
	if !strings.Contains(n[slash+1:], ":") {
		n += ":latest"
	}
	return n
}

// fullName is model.Name.String, which the real server uses in capability
// errors: "registry.ollama.ai/library/llama3:latest".
func fullName(name string) string {
	n := displayName(name)
	switch strings.Count(n, "/") {
	case 0:
		return "registry.ollama.ai/library/" + n
	case 1:
		return "registry.ollama.ai/" + n
	}
	return n
}

// key compares names as the real server does: case-insensitively, with the
// default tag filled in.
func key(name string) string { return strings.ToLower(displayName(name)) }

// parseParams reads "7B", "8.0B", "567M" into a count.
func parseParams(s string) int64 {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "B"):
		mult, s = 1e9, strings.TrimSuffix(s, "B")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1e3, strings.TrimSuffix(s, "K")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return int64(math.Round(f * mult))
}

func (m Model) details() api.ModelDetails {
	return api.ModelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          slices.Clone(m.Families),
		ParameterSize:     m.ParameterSize,
		QuantizationLevel: m.QuantizationLevel,
	}
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	list := []api.ListModelResponse{}
	for _, m := range s.models {
		list = append(list, api.ListModelResponse{
			Name: m.Name, Model: m.Name, ModifiedAt: m.ModifiedAt, Size: m.Size,
			Digest: m.Digest, Details: m.details(),
		})
	}
	s.mu.Unlock()
	slices.SortStableFunc(list, func(a, b api.ListModelResponse) int {
		// most recently modified first, as the real server sorts
		if c := b.ModifiedAt.Compare(a.ModifiedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	writeJSON(w, http.StatusOK, api.ListResponse{Models: list})
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if !bindJSON(w, r, &req) {
		return
	}
	name := cmp.Or(req.Model, req.Name) //nolint:staticcheck // SA1019: older clients still send "name"; the fake answers them as Ollama does
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	if !validName(name) {
		writeError(w, http.StatusInternalServerError, "invalid model path")
		return
	}
	m, ok := s.model(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, m.show(req.System))
}

// show builds the /api/show answer for m.
func (m Model) show(system string) api.ShowResponse {
	tmpl := "{{- range .Messages }}<|{{ .Role }}|>{{ .Content }}{{ end }}<|assistant|>"
	if m.has(CapTools) {
		tmpl = "{{- if .Tools }}{{ .Tools }}{{ end }}" + tmpl
	}
	if m.has(CapThinking) {
		tmpl += "{{ if .Thinking }}<think>{{ .Thinking }}</think>{{ end }}"
	}
	if m.has(CapInsert) {
		tmpl += "{{ .Suffix }}"
	}
	arch := m.Family
	info := map[string]any{
		"general.architecture":         arch,
		"general.parameter_count":      parseParams(m.ParameterSize),
		"general.quantization_version": 2,
		"general.file_type":            15,
		arch + ".context_length":       m.ContextLength,
		arch + ".embedding_length":     4096,
		arch + ".block_count":          32,
	}
	if m.has(CapEmbedding) {
		info[arch+".pooling_type"] = 1
	}
	caps := make([]model.Capability, len(m.Capabilities))
	for i, c := range m.Capabilities {
		caps[i] = model.Capability(c)
	}
	resp := api.ShowResponse{
		License:      m.License,
		Modelfile:    fmt.Sprintf("# Modelfile generated by \"ollama show\"\n# To build a new Modelfile based on this, replace FROM with:\n# FROM %s\n\nFROM %s\nTEMPLATE %q\n", m.Name, m.Digest, tmpl),
		Template:     tmpl,
		System:       system,
		Details:      m.details(),
		ModelInfo:    info,
		Capabilities: caps,
		ModifiedAt:   m.ModifiedAt,
	}
	if m.has(CapVision) {
		resp.ProjectorInfo = map[string]any{
			"general.architecture":    "clip",
			"clip.has_vision_encoder": true,
			"clip.vision.image_size":  336,
		}
	}
	return resp
}

func (s *Server) handlePs(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	s.mu.Lock()
	list := []api.ProcessModelResponse{}
	for k, l := range s.loaded {
		m, ok := s.models[k]
		if !ok || now.After(l.expiresAt) {
			continue
		}
		list = append(list, api.ProcessModelResponse{
			Name: m.Name, Model: m.Name, Size: m.Size, Digest: m.Digest, Details: m.details(),
			ExpiresAt: l.expiresAt, SizeVRAM: m.Size, ContextLength: l.numCtx,
		})
	}
	s.mu.Unlock()
	slices.SortStableFunc(list, func(a, b api.ProcessModelResponse) int {
		return b.ExpiresAt.Compare(a.ExpiresAt) // longest remaining first
	})
	writeJSON(w, http.StatusOK, api.ProcessResponse{Models: list})
}
