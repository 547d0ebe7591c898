// Package httpwire reads what every HTTP client of Chorus reads the same
// way — a Retry-After header, an answer body bounded in size — so the Hub
// client, the endpoints and the trust rule's downloads agree on the
// limits and on how a refusal is worded. It imports nothing of Chorus.
package httpwire
