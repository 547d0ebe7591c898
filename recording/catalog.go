package recording

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/chorusai/chorus/skills"
)

// CatalogDigest identifies a skill catalog's content: its skills and
// their models as they would be shown to the controller. Selection
// numbers candidates in the catalog's order, so a replay must run with
// the catalog the recording was made with to pick the same models.
func CatalogDigest(cat *skills.Catalog) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, s := range cat.All() {
		_ = enc.Encode(s) // a hash never fails to write
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
