package planning

import "github.com/chorusai/chorus/pipeline/flow"

// Stream reads a plan reply while it streams and hands over its parts
// the moment each is complete: the constraints object, then each task
// object of the "tasks" list. The plan schema puts "constraints" first
// when there are any, so a grammar-constrained model has said what limits
// the models before it writes the first task — a task may then start
// (streaming dispatch) while the rest of the plan decodes. A reply whose
// first key is "tasks" has no constraints: it is handed over as an empty
// constraints object when "tasks" opens — unless WaitForConstraints, when
// the request itself may state a limit (selection.RequestMayConstrain) and a model
// not held to the schema's order might write its constraints last.
//
// Only a reply that is one JSON object from its first byte is read here;
// anything else (prose, a fence, a bare list) is left to the end of the
// reply, when parsePlan reads it whole. The scan is incremental: each byte
// is looked at once, however the reply is cut into tokens.
type Stream struct {
	flow.JSONScan
	// key is the last key read at the top level, keyStart where the
	// string literal being read there began.
	key      string
	keyStart int
	// open is the top-level key whose value is being read ("tasks",
	// "constraints"); objStart is where its current object began.
	open     string
	objStart int
	// constraints is true once the constraints object was read before
	// any task, or the tasks came first: only then are tasks handed over.
	constraints bool
	// WaitForConstraints: a reply that writes its tasks first starts
	// nothing early (the request may state a limit).
	WaitForConstraints bool

	OnConstraints func(flow.Constraints)
	OnTask        func(flow.Task)
	// tasks counts the task objects read, for parseTask's index.
	tasks int
}

// Write takes the next piece of the streamed reply.
func (s *Stream) Write(tok string) { s.Feed(tok, s.scan) }

func (s *Stream) scan(b string, i int) {
	c := b[i]
	if s.Opening(c) {
		return
	}
	wasIn := s.Str.In
	if s.Str.Inside(c) || wasIn {
		if s.Depth == 1 {
			if !wasIn {
				s.keyStart = i
			} else if !s.Str.In {
				s.key = b[s.keyStart+1 : i]
			}
		}
		return
	}
	switch c {
	case '{', '[':
		s.Depth++
		switch {
		case s.Depth == 2:
			s.open, s.objStart = s.key, i
			if s.open == "tasks" && !s.constraints {
				s.tasksFirst()
			}
		case s.Depth == 3 && s.open == "tasks" && c == '{':
			s.objStart = i
		}
	case '}', ']':
		switch {
		case s.Depth == 3 && s.open == "tasks" && c == '}':
			s.task(b[s.objStart : i+1])
		case s.Depth == 2 && s.open == "constraints" && c == '}':
			s.readConstraints(b[s.objStart : i+1])
		case s.Depth == 1:
			s.Off = true // the reply's object is complete
		}
		s.Depth--
	}
}

// tasksFirst takes a reply whose tasks come before any constraints: the
// schema's plan without constraints, unless the request may state a limit
// — then what limits the models is not known until the reply ends, and
// nothing may start early.
func (s *Stream) tasksFirst() {
	if s.WaitForConstraints {
		s.Off = true
		return
	}
	s.constraints = true
	if s.OnConstraints != nil {
		s.OnConstraints(flow.Constraints{})
	}
}

func (s *Stream) readConstraints(obj string) {
	if s.constraints {
		// After the tasks (a model not held to the schema's order): the
		// tasks offered were offered as having none, and the final plan's
		// constraints withdraw them if they differ (dispatcher.settle).
		return
	}
	v, err := flow.DecodeLenient(obj)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		s.Off = true
		return
	}
	c, _ := parseConstraintsJSON(m)
	s.constraints = true
	if s.OnConstraints != nil {
		s.OnConstraints(c)
	}
}

func (s *Stream) task(obj string) {
	v, err := flow.DecodeLenient(obj)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		// A task object that does not read: whatever follows is left to
		// the whole reply's parse and validation.
		s.Off = true
		return
	}
	t, _ := parseTask(m, s.tasks)
	s.tasks++
	if s.OnTask != nil {
		s.OnTask(t)
	}
}
