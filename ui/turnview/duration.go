package turnview

import (
	"fmt"
	"time"
)

// HumanDuration formats d compactly: 850ms, 3.2s, 1m05s.
func HumanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0.0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	m := int(d.Minutes())
	return fmt.Sprintf("%dm%02ds", m, int(d.Seconds())-60*m)
}
