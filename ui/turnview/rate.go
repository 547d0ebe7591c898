package turnview

import (
	"fmt"
	"strconv"
	"strings"
)

// HumanRate renders tokens per second as the other figures on screen
// read: one decimal below 10, whole numbers below a thousand, then k and M
// with at most one decimal — "7.5 tok/s", "41 tok/s", "74k tok/s".
func HumanRate(tps float64) string {
	var n string
	switch {
	case tps >= 1e6:
		n = trimPoint(tps/1e6) + "M"
	case tps >= 999.5:
		n = trimPoint(tps/1e3) + "k"
	case tps >= 10:
		n = strconv.FormatFloat(tps, 'f', 0, 64)
	default:
		n = strconv.FormatFloat(tps, 'f', 1, 64)
	}
	return fmt.Sprintf("%s tok/s", n)
}

// trimPoint writes f with one decimal, or none from ten on or when it is
// ".0".
func trimPoint(f float64) string {
	if f >= 10 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}
