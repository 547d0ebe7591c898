package planning

import "testing"

func TestGroupNames(t *testing.T) {
	got := groupNames([]string{"ocr", "hed-control", "seg-control", "mlsd-control", "canny-text-to-image", "text-to-video"})
	want := "ocr, {hed,seg,mlsd}-control, canny-text-to-image, text-to-video"
	if got != want {
		t.Fatalf("groupNames = %q, want %q", got, want)
	}
}
