// Package scrape reads a Prometheus /metrics endpoint the way Prometheus
// does — an HTTP GET, the text format parsed by Prometheus's own parser —
// for the tests of chorus's metrics.
package scrape

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Samples are a scrape's values by series: `name{label="value",…}` with
// the labels sorted, "name" alone without labels. A histogram gives
// name_count and name_sum; a summary too.
type Samples map[string]float64

// Get scrapes url.
func Get(url string) (Samples, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: not Prometheus's text format: %w", url, err)
	}
	out := Samples{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			key := series(name, m.GetLabel())
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Untyped != nil:
				out[key] = m.GetUntyped().GetValue()
			case m.Histogram != nil:
				out[series(name+"_count", m.GetLabel())] = float64(m.GetHistogram().GetSampleCount())
				out[series(name+"_sum", m.GetLabel())] = m.GetHistogram().GetSampleSum()
			case m.Summary != nil:
				out[series(name+"_count", m.GetLabel())] = float64(m.GetSummary().GetSampleCount())
				out[series(name+"_sum", m.GetLabel())] = m.GetSummary().GetSampleSum()
			}
		}
	}
	return out, nil
}

func series(name string, labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return name
	}
	var ls []string
	for _, l := range labels {
		ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	slices.Sort(ls)
	return name + "{" + strings.Join(ls, ",") + "}"
}

// Family adds up every series of the family name (a histogram's: pass
// name_count), whatever their labels.
func (s Samples) Family(name string) float64 {
	var sum float64
	for k, v := range s {
		if k == name || strings.HasPrefix(k, name+"{") {
			sum += v
		}
	}
	return sum
}

// Has reports whether any series of the family name is there.
func (s Samples) Has(name string) bool {
	for k := range s {
		if k == name || strings.HasPrefix(k, name+"{") {
			return true
		}
	}
	return false
}
