package skills

import (
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestLoadSharesNothing: two catalogs loaded from the one parse of the
// embedded skills share no slice, map or pointer — a caller that changes
// its catalog's skills changes no other catalog's.
func TestLoadSharesNothing(t *testing.T) {
	t.Parallel()
	a, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.skills) == 0 || len(a.skills) != len(b.skills) {
		t.Fatalf("%d and %d skills", len(a.skills), len(b.skills))
	}
	for i := range a.skills {
		if a.skills[i] == b.skills[i] {
			t.Fatalf("%s: the same *Skill in both catalogs", a.skills[i].Name)
		}
		for _, p := range sharedMemory(reflect.ValueOf(*a.skills[i]), reflect.ValueOf(*b.skills[i]), a.skills[i].Name) {
			t.Errorf("%s is shared between two loaded catalogs", p)
		}
	}
	a.skills[0].Models[0].Providers = append(a.skills[0].Models[0].Providers, Provider{Name: "changed"})
	a.skills[0].Args[0].Name = "changed"
	if c, _ := Load(""); c.skills[0].Args[0].Name == "changed" || len(c.skills[0].Models[0].Providers) != len(b.skills[0].Models[0].Providers) {
		t.Error("a change to one catalog's skill shows in the next catalog loaded")
	}
}

// sharedMemory lists the paths under x and y (values of one type) where
// both hold the same non-empty slice array, map or pointer.
func sharedMemory(x, y reflect.Value, path string) []string {
	if x.Type() == reflect.TypeOf(time.Time{}) {
		return nil // its *Location is shared by design
	}
	var out []string
	switch x.Kind() {
	case reflect.Slice:
		if x.Len() > 0 && y.Len() > 0 && x.Pointer() == y.Pointer() {
			return []string{path}
		}
		for i := range min(x.Len(), y.Len()) {
			out = append(out, sharedMemory(x.Index(i), y.Index(i), path+"["+strconv.Itoa(i)+"]")...)
		}
	case reflect.Map:
		if !x.IsNil() && x.Pointer() == y.Pointer() {
			return []string{path}
		}
	case reflect.Pointer:
		if !x.IsNil() && x.Pointer() == y.Pointer() {
			return []string{path}
		}
		if !x.IsNil() && !y.IsNil() {
			out = append(out, sharedMemory(x.Elem(), y.Elem(), path)...)
		}
	case reflect.Struct:
		for i := range x.NumField() {
			out = append(out, sharedMemory(x.Field(i), y.Field(i), path+"."+x.Type().Field(i).Name)...)
		}
	}
	return out
}
