package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chorusai/chorus/controller"
)

// queueCollector reads the controller's queue once per scrape: the queue
// counts under the lock it takes anyway, and nothing is observed on a
// call's path.
type queueCollector struct {
	src                QueueSource
	depth, busy, slots *prometheus.Desc
	wait               *prometheus.Desc
}

func newQueueCollector(src QueueSource) *queueCollector {
	return &queueCollector{
		src: src,
		depth: prometheus.NewDesc("chorus_controller_queue_depth",
			"Controller calls waiting for a free slot now (controller.max_concurrent), all chats together.", nil, nil),
		busy: prometheus.NewDesc("chorus_controller_slots_busy",
			"Controller calls on the server now.", nil, nil),
		slots: prometheus.NewDesc("chorus_controller_slots",
			"The controller's slots: controller.max_concurrent (0: unbounded).", nil, nil),
		wait: prometheus.NewDesc("chorus_controller_wait_seconds",
			"How long controller calls waited for a slot (0 for a call served at once; a call whose turn was cancelled while it waited counts with its wait).", nil, nil),
	}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.depth
	ch <- c.busy
	ch <- c.slots
	ch <- c.wait
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.QueueStats()
	ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(st.Waiting))
	ch <- prometheus.MustNewConstMetric(c.busy, prometheus.GaugeValue, float64(st.Busy))
	ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(st.Slots))
	buckets := make(map[float64]uint64, len(st.Waits))
	for i, b := range waitBounds(st) {
		buckets[b] = st.Waits[i]
	}
	ch <- prometheus.MustNewConstHistogram(c.wait, st.WaitCount, st.WaitSum.Seconds(), buckets)
}

// waitBounds are the queue's histogram bounds in seconds, as many as the
// stats hold.
func waitBounds(st controller.QueueStats) []float64 {
	bounds := controller.WaitBounds()
	out := make([]float64, 0, len(st.Waits))
	for i := range min(len(bounds), len(st.Waits)) {
		out = append(out, bounds[i].Seconds())
	}
	return out
}
