package ui

import (
	"context"
	"errors"
	"testing"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/turnview"
)

func TestPumpDeliversInOrderAndCoalesces(t *testing.T) {
	p := newPump(3)
	for _, s := range []string{"a", "b", "c"} {
		p.emit(pipeline.TokenEvent{Text: s})
	}
	msg := p.listen()().(pumpMsg)
	if msg.turn != 3 || len(msg.items) != 3 {
		t.Fatalf("want one batch of 3 for turn 3, got %+v", msg)
	}
	var got string
	for _, it := range msg.items {
		got += it.(pipeline.TokenEvent).Text
	}
	if got != "abc" {
		t.Errorf("order = %q", got)
	}
	// Review requests wait for the dialog's answer, or for cancellation.
	review := p.reviewFunc()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := review(ctx, pipeline.Plan{})
		done <- err
	}()
	req := p.listen()().(pumpMsg).items[0].(reviewRequest)
	r := &planReview{req: req}
	r.answer(pipeline.Plan{}, turnview.ErrPlanRejected)
	r.answer(pipeline.Plan{}, nil) // answered once only; a second answer must not block
	if err := <-done; !errors.Is(err, turnview.ErrPlanRejected) {
		t.Fatalf("review returned %v", err)
	}
	go func() {
		_, err := review(ctx, pipeline.Plan{})
		done <- err
	}()
	<-p.signal // the request was queued
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled turn should end the review wait: %v", err)
	}
}
