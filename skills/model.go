package skills

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EndpointKind names a family of endpoints that can serve a model. The
// constants below are the one list of them: a model's Endpoints name them,
// and package endpoints keys its endpoints and routes by them. Skill files
// and the catalog cache write them as plain strings.
type EndpointKind string

// The endpoint kinds.
const (
	// EndpointHuggingFace is the Hugging Face Inference API, through its
	// router's Inference Providers.
	EndpointHuggingFace EndpointKind = "huggingface"
	// EndpointLocal is a self-hosted inference server (local.url).
	EndpointLocal EndpointKind = "local"
	// EndpointOllama is an Ollama model (pulled, or pulled on demand).
	EndpointOllama EndpointKind = "ollama"
	// EndpointOpenAI is an OpenAI-compatible server's kind. Skill files do
	// not name it (it is not in EndpointKinds): its models are the ones
	// the configuration lists for each server, whatever their ids.
	EndpointOpenAI EndpointKind = "openai"
	// EndpointCommand is a program on this machine.
	EndpointCommand EndpointKind = "command"
	// EndpointBuiltin is Go code inside Chorus.
	EndpointBuiltin EndpointKind = "builtin"
	// EndpointRetrieval fetches external knowledge from web APIs
	// (Wikipedia, SearxNG) for the retrieval skill.
	EndpointRetrieval EndpointKind = "retrieval"
	// EndpointMCP is the kind of the tools of MCP servers the
	// configuration lists. Skill files do not name it either: its skills
	// and candidates come from the servers' tools/list.
	EndpointMCP EndpointKind = "mcp"
)

// EndpointKinds lists every endpoint kind a skill file may name.
var EndpointKinds = []EndpointKind{EndpointHuggingFace, EndpointLocal, EndpointOllama, EndpointCommand, EndpointBuiltin, EndpointRetrieval}

// KnownEndpoint reports whether kind is one of EndpointKinds.
func KnownEndpoint(kind EndpointKind) bool { return slices.Contains(EndpointKinds, kind) }

// knownEndpoints says EndpointKinds for an error: "huggingface, local, …".
func knownEndpoints() string {
	var b strings.Builder
	for i, k := range EndpointKinds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(k))
	}
	return b.String()
}

// Model is one candidate expert for a skill, with the facts selection ranks
// and filters on.
type Model struct {
	ID          string `yaml:"id" json:"id"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Downloads   int64  `yaml:"downloads,omitempty" json:"downloads,omitempty"`
	Likes       int64  `yaml:"likes,omitempty" json:"likes,omitempty"`
	// License is the SPDX-like id the Hub uses ("apache-2.0", "mit"); empty
	// means unknown, which never satisfies a licence constraint.
	License string `yaml:"license,omitempty" json:"license,omitempty"`
	// Params is the parameter count; SizeBytes the size of the weights.
	// Either may be zero when unknown.
	Params    int64 `yaml:"params,omitempty" json:"params,omitempty"`
	SizeBytes int64 `yaml:"size_bytes,omitempty" json:"size_bytes,omitempty"`
	// Endpoints lists the endpoint kinds that can serve the model.
	Endpoints []EndpointKind `yaml:"endpoints" json:"endpoints"`
	// Niche says what a special-purpose model is for ("NSFW detection
	// only"): it ranks after the general models of its skill, whatever its
	// downloads, so a task run without the controller's choice never lands
	// on it, and the controller sees why.
	Niche string `yaml:"niche,omitempty" json:"niche,omitempty"`
	// Providers are the Inference Providers that serve the model through
	// Hugging Face's router (huggingface endpoint), in the Hub's order:
	// curated in a skill file, or read from the Hub's
	// inferenceProviderMapping by `chorus models sync`. Empty means not
	// known: the endpoint asks the Hub when it runs the model.
	Providers []Provider `yaml:"providers,omitempty" json:"providers,omitempty"`
	// Command is the program (and fixed arguments) for the command kind.
	Command []string `yaml:"command,omitempty" json:"command,omitempty"`
	// Benchmarks are model-index results from the model card.
	Benchmarks []Benchmark `yaml:"benchmarks,omitempty" json:"benchmarks,omitempty"`
	// Configured marks a model the user's configuration names for the
	// skill (an OpenAI-compatible server's models): asking for it by name
	// outranks the catalog's default. Never read from a skill file.
	Configured bool `yaml:"-" json:"configured,omitempty"`
	// Fetched is when a live catalog sync last saw the model.
	Fetched time.Time `yaml:"fetched,omitempty" json:"fetched,omitzero"`
}

// Benchmark is one recorded evaluation result.
type Benchmark struct {
	Dataset string  `yaml:"dataset" json:"dataset"`
	Metric  string  `yaml:"metric" json:"metric"`
	Value   float64 `yaml:"value" json:"value"`
	// LowerIsBetter is true for metrics such as WER or FID.
	LowerIsBetter bool `yaml:"lower_is_better,omitempty" json:"lower_is_better,omitempty"`
}

// ServedBy reports whether the model lists the endpoint kind.
func (m Model) ServedBy(kind EndpointKind) bool { return slices.Contains(m.Endpoints, kind) }

// bytesPerParam estimates weight size from a parameter count (fp16), and the
// reverse, so one size constraint works whichever fact a card records.
const bytesPerParam = 2

// Size returns the model's weight size in bytes, estimated from Params when
// only that is known; 0 means unknown.
func (m Model) Size() int64 {
	if m.SizeBytes > 0 {
		return m.SizeBytes
	}
	return m.Params * bytesPerParam
}

// ParamCount returns the parameter count, estimated from SizeBytes when only
// that is known; 0 means unknown.
func (m Model) ParamCount() int64 {
	if m.Params > 0 {
		return m.Params
	}
	return m.SizeBytes / bytesPerParam
}

// HumanSize renders the model's size for people: "1.2B params", "340 MB".
func (m Model) HumanSize() string {
	switch {
	case m.Params > 0:
		return HumanCount(m.Params) + " params"
	case m.SizeBytes > 0:
		return HumanBytes(m.SizeBytes)
	}
	return "size unknown"
}

// HumanCount renders n with a K/M/B suffix.
func HumanCount(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return trimFloat(f/1e9) + "B"
	case f >= 1e6:
		return trimFloat(f/1e6) + "M"
	case f >= 1e3:
		return trimFloat(f/1e3) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// HumanBytes renders n bytes in decimal units.
func HumanBytes(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return trimFloat(f/1e9) + " GB"
	case f >= 1e6:
		return trimFloat(f/1e6) + " MB"
	case f >= 1e3:
		return trimFloat(f/1e3) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

func trimFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// Limit is a size bound: a weight size in bytes or a parameter count.
type Limit struct {
	Bytes  int64 `json:"bytes,omitempty"`
	Params int64 `json:"params,omitempty"`
}

// IsZero reports whether no limit is set.
func (l Limit) IsZero() bool { return l.Bytes == 0 && l.Params == 0 }

// Allows reports whether m fits the limit. A model of unknown size never fits
// a limit: a constraint is never broken on a guess.
func (l Limit) Allows(m Model) bool {
	if l.IsZero() {
		return true
	}
	if l.Bytes > 0 {
		s := m.Size()
		return s > 0 && s <= l.Bytes
	}
	p := m.ParamCount()
	return p > 0 && p <= l.Params
}

// String renders the limit as ParseLimit accepts it.
func (l Limit) String() string {
	switch {
	case l.Bytes > 0:
		return strings.ReplaceAll(HumanBytes(l.Bytes), " ", "")
	case l.Params > 0:
		return HumanCount(l.Params)
	}
	return ""
}

// ParseLimit reads a size bound: "500MB", "2GB", "1.5 GiB" are weight sizes;
// "350M", "7B", "1.3b params" are parameter counts.
func ParseLimit(s string) (Limit, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "params")
	t = strings.TrimSuffix(t, "parameters")
	t = strings.ReplaceAll(t, " ", "")
	if t == "" {
		return Limit{}, fmt.Errorf("empty size")
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], t[i:]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return Limit{}, fmt.Errorf("size %q: want a number and a unit such as 500MB, 2GB, 350M or 7B", s)
	}
	bytesUnits := map[string]float64{"b": 0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}
	paramUnits := map[string]float64{"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "bn": 1e9, "t": 1e12}
	// A bound below one byte or parameter would truncate to zero, which
	// means "no limit": the user's constraint would vanish silently. One
	// past int64 would wrap around.
	checked := func(n float64) (int64, error) {
		switch {
		case n < 1:
			return 0, fmt.Errorf("size %q is less than one %s; give a real bound such as 500MB or 350M", s, map[bool]string{true: "parameter", false: "byte"}[paramUnits[unit] > 0])
		case n >= 1<<62:
			return 0, fmt.Errorf("size %q is too large to be a bound", s)
		}
		return int64(n), nil
	}
	if m, ok := paramUnits[unit]; ok {
		n, err := checked(v * m)
		return Limit{Params: n}, err
	}
	if m, ok := bytesUnits[unit]; ok && m > 0 {
		n, err := checked(v * m)
		return Limit{Bytes: n}, err
	}
	return Limit{}, fmt.Errorf("size %q: unknown unit %q (use MB/GB for weights, M/B for parameters)", s, unit)
}
