package sessions

import "sync"

// SaveOrder keeps saves that run concurrently from writing an older
// snapshot over a newer one. A caller numbers each snapshot with Next as it
// takes it, in the order it takes them, and may then Save them from any
// goroutine in any order: a save overtaken by a newer snapshot of the same
// session writes nothing. The zero SaveOrder is ready to use.
//
// The TUI needs it because Bubble Tea runs commands concurrently, so two
// saves close together (a turn's end and a /save) may reach the disk in
// either order.
type SaveOrder struct {
	mu      sync.Mutex
	next    int64
	written map[string]int64 // by session id: the newest snapshot on disk
}

// Next numbers a snapshot just taken.
func (o *SaveOrder) Next() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next++
	return o.next
}

// Save writes s, snapshot number seq, to st unless a newer snapshot of the
// same session is already on disk.
func (o *SaveOrder) Save(st Store, s *Session, seq int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.written[s.ID] > seq {
		return nil
	}
	if err := st.Save(s); err != nil {
		return err
	}
	if o.written == nil {
		o.written = map[string]int64{}
	}
	o.written[s.ID] = seq
	return nil
}
