package engine

// Signed webhook deliveries (docs/api.md#webhook-delivery; docs/fidelity.md
// G16, M12.10): a real HTTP POST per subscribed endpoint, HMAC-signed and
// retried on failure. Every attempt is a virtual clock timer whose POST
// completes before the next timer fires (docs/time.md), so one Advance
// runs every attempt and retry due by its target.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// Delivery headers (docs/fidelity.md G16).
const (
	HeaderWebhookTimestamp = "X-PolyAI-Timestamp"
	HeaderWebhookSignature = "X-PolyAI-Signature"
	HeaderWebhookEventID   = "X-PolyAI-Event-ID"
)

// retryDelays are the delays before attempts 1 to 6 (docs/fidelity.md G16).
var retryDelays = [...]time.Duration{0, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 4 * time.Hour}

const maxDeliveryLog = 10000

// DeliveryAttempt is one delivery attempt as the log shows it: never the
// secret, and no wall-time latency, so the same session gives the same log.
type DeliveryAttempt struct {
	// Time is the attempt's virtual time (the signed timestamp).
	Time        time.Time `json:"time"`
	EventID     string    `json:"event_id"`
	EventType   string    `json:"event_type"`
	AlertRuleID string    `json:"alert_rule_id"`
	EndpointID  string    `json:"endpoint_id"`
	URL         string    `json:"url"`
	// Attempt is 1 for the first try, up to 6.
	Attempt int `json:"attempt"`
	// Status is the receiver's HTTP status (0 when none came).
	Status    int    `json:"status"`
	Error     string `json:"error,omitempty"`
	Delivered bool   `json:"delivered"`
	// NextAttemptAt is the retry's virtual time, when one is scheduled.
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
}

type delivery struct {
	gen        uint64
	region     string
	account    string
	endpointID string
	eventID    string
	eventType  string
	ruleID     string
	body       []byte
}

// Deliveries returns the delivery log, oldest first.
func (a *Engine) Deliveries() []DeliveryAttempt {
	a.webhooks.mu.Lock()
	defer a.webhooks.mu.Unlock()
	return append([]DeliveryAttempt(nil), a.webhooks.log...)
}

// announce sends an event to the account's enabled subscribed endpoints;
// first attempts are timers due now, in the same Advance.
func (a *Engine) announce(e alertEvent, now time.Time) {
	body, err := json.Marshal(e.payload)
	if err != nil {
		a.Log.Error("webhook payload", "err", err)
		return
	}
	endpoints, err := a.listWebhooks(e.region, e.account)
	if err != nil {
		a.Log.Error("webhook endpoints", "err", err)
		return
	}
	gen := a.Generation()
	for _, ep := range endpoints {
		if !ep.Enabled || !ep.subscribes(e.payload.EventType) {
			continue
		}
		d := &delivery{gen: gen, region: e.region, account: e.account, endpointID: ep.ID, eventID: a.NewUUID(),
			eventType: e.payload.EventType, ruleID: e.payload.Alert.ID, body: body}
		a.scheduleAttempt(d, 1, now)
		a.RecordTransition(MachineWebhookDelivery, "", "attempted")
	}
}

func (a *Engine) scheduleAttempt(d *delivery, n int, due time.Time) {
	a.clock.At(due, func(now time.Time) {
		if a.Generation() != d.gen || a.bg.Err() != nil {
			return // a reset or Close came in between
		}
		a.attempt(d, n, now)
	})
}

// Sign computes the X-PolyAI-Signature of a body: lowercase hex
// HMAC-SHA256 keyed with the secret over "{timestamp}.{body}".
func Sign(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// attempt makes one attempt synchronously and arms a retry if due.
func (a *Engine) attempt(d *delivery, n int, due time.Time) {
	a.RecordClockEvent(attemptClockEvent(n))
	to := "failed" // the delivery's state after the attempt, unless set below
	defer func() { a.RecordTransition(MachineWebhookDelivery, attemptState(n), to) }()
	rec := DeliveryAttempt{Time: due, EventID: d.eventID, EventType: d.eventType, AlertRuleID: d.ruleID,
		EndpointID: d.endpointID, Attempt: n}
	var ep EndpointRecord
	if err := a.store.GetDoc(DocWebhook, d.region, d.endpointID, &ep); err != nil || ep.AccountID != d.account {
		rec.Error = "endpoint deleted"
		a.logAttempt(d, rec)
		return
	}
	rec.URL = scenario.RedactURL(ep.URL)
	if !ep.Enabled {
		rec.Error = "endpoint disabled"
		a.logAttempt(d, rec)
		return
	}
	// The target rules may have changed: a refused target is not retried.
	if u, err := url.Parse(ep.URL); err != nil {
		rec.Error = "target refused: unreadable URL"
		a.logAttempt(d, rec)
		return
	} else if err := a.checkTargetURL(u); err != nil {
		rec.Error = "target refused: url " + err.Error()
		a.logAttempt(d, rec)
		return
	}
	timeout := time.Duration(ep.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = defaultWebhookTimeoutMS * time.Millisecond
	}
	// A receiver the timeline has down answers its status without a send.
	status, down := a.receiverDown(due, &ep)
	var err error
	if !down {
		status, err = a.post(a.bg, &ep, d, due, timeout)
	}
	rec.Status = status
	retry := false
	var refused *targetRefused
	switch {
	case errors.As(err, &refused):
		rec.Error = refused.Error() // the dialer refused every address: not retried
	case err != nil:
		rec.Error = err.Error()
		retry = a.bg.Err() == nil // not after Close
	case status >= 200 && status < 300:
		rec.Delivered = true
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests, status >= 500:
		rec.Error = "HTTP " + strconv.Itoa(status)
		retry = true
	default:
		rec.Error = "HTTP " + strconv.Itoa(status) + " (not retried)"
	}
	if down {
		rec.Error += " (receiver down: timeline)"
	}
	if retry && n < len(retryDelays) {
		next := due.Add(retryDelays[n])
		rec.NextAttemptAt = &next
		if a.logAttempt(d, rec) {
			to = "retried"
			a.scheduleAttempt(d, n+1, next)
		}
		return
	}
	switch {
	case rec.Delivered:
		to = "delivered"
	case retry:
		to = "given_up"
	}
	a.logAttempt(d, rec)
}

func (a *Engine) post(ctx context.Context, ep *EndpointRecord, d *delivery, due time.Time, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(d.body))
	if err != nil {
		return 0, err
	}
	for k, v := range ep.Headers {
		req.Header.Set(k, v)
	}
	ts := strconv.FormatInt(due.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mockplatform-webhooks/1")
	req.Header.Set(HeaderWebhookTimestamp, ts)
	req.Header.Set(HeaderWebhookSignature, Sign(ep.Secret, ts, d.body))
	req.Header.Set(HeaderWebhookEventID, d.eventID)
	resp, err := a.webhooks.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, errors.New("timeout after " + timeout.String())
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // drained for connection reuse; a short read changes nothing
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// logAttempt logs unless the delivery is of an earlier reset.
func (a *Engine) logAttempt(d *delivery, rec DeliveryAttempt) bool {
	a.webhooks.mu.Lock()
	defer a.webhooks.mu.Unlock()
	if a.Generation() != d.gen {
		return false
	}
	if len(a.webhooks.log) >= maxDeliveryLog {
		a.webhooks.log = a.webhooks.log[1:]
	}
	a.webhooks.log = append(a.webhooks.log, rec)
	return true
}
