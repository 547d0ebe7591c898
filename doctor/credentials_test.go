package doctor_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/chorusai/chorus/doctor"
)

// TestDoctorRouterTokenStaysOnItsOrigin: the router check carries the
// Hugging Face token, so it follows no redirect to another origin (the
// rule of every client that holds a configured credential,
// scope.Credentialed): the token never reaches the other server, and the
// check fails saying so.
func TestDoctorRouterTokenStaysOnItsOrigin(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	var leaked atomic.Value
	elsewhere := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			leaked.Store(a)
		}
		_, _ = rw.Write([]byte(`{"object":"list","data":[]}`))
	}))
	t.Cleanup(elsewhere.Close)
	router := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(router.Close)
	w.env.Config.HuggingFace.BaseURL = router.URL
	_, by := w.run(t, doctor.Options{})
	if a := leaked.Load(); a != nil {
		t.Fatalf("the router check sent the token %q to %s, another origin", a, elsewhere.URL)
	}
	want(t, by["huggingface.router"], doctor.Fail)
}
