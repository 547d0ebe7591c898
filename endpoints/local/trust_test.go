package local

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/scope"
)

// TestJarvisSendsOnlyGivenFiles: models_server reads input files itself,
// so what Chorus sends it is a path — and only the resolved path of a file
// in req.Files. A path only in Args (a system file, a key under ~) is
// refused before anything is sent.
func TestJarvisSendsOnlyGivenFiles(t *testing.T) {
	j := fakehf.NewJarvis(t)
	j.Model("Salesforce/blip-image-captioning-large", "image-to-text")
	ep := New(Options{URL: j.URL, PublicDir: j.PublicDir()})
	for _, p := range []string{"/etc/passwd", "~/.ssh/id_rsa", "../../.ssh/id_rsa"} {
		_, err := ep.Infer(context.Background(), endpoints.Request{Task: "image-to-text", Model: "Salesforce/blip-image-captioning-large", Args: map[string]string{"image": p}})
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want a refusal naming it", p, err)
		}
	}
	for _, r := range j.Requests() {
		if r.Method == http.MethodPost {
			t.Fatalf("a request was sent for a refused file: %s", r.Body)
		}
	}

	// Through a link, the server is sent the real file's path.
	f := testkit.WriteInputs(t)
	link := filepath.Join(t.TempDir(), "link.png")
	if err := os.Symlink(f.PNG, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(f.PNG)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Infer(context.Background(), endpointstest.Request(t, "image-to-text", "Salesforce/blip-image-captioning-large", map[string]string{"image": link})); err != nil {
		t.Fatalf("Infer: %v", err)
	}
	reqs := j.RequestsFor("Salesforce/blip-image-captioning-large")
	var body struct {
		Img string `json:"img_url"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil || body.Img != real {
		t.Errorf("img_url = %q (%v), want the checked file's real path %s", body.Img, err, real)
	}
}

// TestJarvisGeneratedFilesStayInPublicDir: a path models_server answers is
// an expert's output; Chorus reads it only inside local.public_dir.
// Paths that leave it — by "..", by a link, absolutely — are refused with
// an error that names the directory and never the file's contents, and
// are not fetched over HTTP instead. Files inside it are read.
func TestJarvisGeneratedFilesStayInPublicDir(t *testing.T) {
	j := fakehf.NewJarvis(t)
	j.ServePublic(true) // a refused path must not be fetched instead
	public := j.PublicDir()
	secret := filepath.Join(filepath.Dir(public), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(public, "images", "escape.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(public, "images", "ok.png"), fakehf.PNG(6, 4), 0o644); err != nil {
		t.Fatal(err)
	}
	up := strings.Repeat("../", 20)
	ep := New(Options{URL: j.URL, PublicDir: public})
	respond := func(p string) fakehf.ResponderFunc {
		return func(*http.Request, []byte) (int, string, []byte) {
			b, _ := json.Marshal(map[string]string{"path": p})
			return 200, "application/json", b
		}
	}
	for i, p := range []string{"../id_rsa", "/../id_rsa", "/images/escape.png", secret, up + "etc/passwd", "http://169.254.169.254/latest/meta-data"} {
		model := "m/escape" + string(rune('a'+i))
		j.Model(model, "text-to-image").Respond(respond(p))
		res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: model, Args: map[string]string{"text": "x"}})
		if !errors.Is(err, endpoints.ErrUnavailable) || !errors.Is(err, scope.ErrDenied) || len(res.Blobs) != 0 {
			t.Errorf("%s: err = %v, %d blobs; want a refusal", p, err, len(res.Blobs))
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "PRIVATE KEY") || (!strings.Contains(msg, "local.public_dir") && !strings.Contains(msg, "local.url")) {
			t.Errorf("%s: err = %q, want it to name the setting and never the contents", p, msg)
		}
	}
	for _, r := range j.Requests() {
		if r.Method == http.MethodGet && (strings.Contains(r.Path, "id_rsa") || strings.Contains(r.Path, "passwd") || strings.Contains(r.Path, "escape")) {
			t.Errorf("a refused path was fetched over HTTP: %s", r.Path)
		}
	}
	// Inside the directory: as models_server writes it, and absolute.
	for i, p := range []string{"/images/ok.png", filepath.Join(public, "images", "ok.png")} {
		model := "m/inside" + string(rune('a'+i))
		j.Model(model, "text-to-image").Respond(respond(p))
		res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: model, Args: map[string]string{"text": "x"}})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		endpointstest.WantBlob("image/png", testkit.ImageSize(6, 4))(t, res)
	}
}
