package flow

type promptResult struct {
	ID     int               `json:"id"`
	Task   string            `json:"task"`
	Args   map[string]string `json:"args,omitempty"`
	Status string            `json:"status"`
	Result string            `json:"result,omitempty"`
	Data   string            `json:"data,omitempty"`
	Files  []string          `json:"files,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// Results trims results to fit budget bytes, sharing it evenly.
func Results(runs []*TaskRun, budget int) []promptResult {
	per := budget / max(1, len(runs))
	out := make([]promptResult, 0, len(runs))
	for _, r := range runs {
		pr := promptResult{ID: r.Task.ID, Task: r.Task.Task, Status: r.Status, Files: r.Files, Error: Budgeted(r.Err, per/4)}
		pr.Args = map[string]string{}
		args := r.Args
		if args == nil {
			args = r.Task.Args
		}
		for k, v := range args {
			pr.Args[k] = Budgeted(v, per/6)
		}
		pr.Result = Budgeted(r.Text, per/2)
		if len(r.Data) > 0 && len(r.Text) < per/4 {
			pr.Data = Budgeted(string(r.Data), per/4)
		}
		out = append(out, pr)
	}
	return out
}
