package conversation

import "github.com/chorusai/chorus/pipeline"

// Observer watches what a service does, for an operator's metrics (package
// metrics): the chats it opens and closes, and every turn — its events as
// they happen and how it ended. Every front end runs its turns through the
// service, so one observer sees the turns of the TUI, of each ssh chat and
// of each MCP client alike. Services over one engine may share one (chorus
// serve --ssh opens a service per connection).
//
// Its methods run on the chats' and turns' own goroutines: they must be
// quick and safe for concurrent use.
type Observer interface {
	// ChatOpened and ChatClosed bracket a chat (Service.Chat, Chat.Close).
	ChatOpened()
	ChatClosed()
	// TurnStarted is called as a turn starts; the TurnObserver it returns
	// is told that turn's events and its end.
	TurnStarted() TurnObserver
}

// TurnObserver watches one turn. Event is called with each of the turn's
// events in order, never twice at once; Ended once, with the turn's
// result, after it was saved.
type TurnObserver interface {
	Event(pipeline.Event)
	Ended(Result)
}
