import Kafka
import Runtime

/// The la-coordinator's metrics (Prometheus names `la_*`).
public struct CoordinatorMetrics: Sendable {
    let registry: MetricsRegistry

    /// An event fanned out; `kind` is update, key or end.
    func processed(_ kind: String) {
        registry.counter("la_events_processed_total", help: "Match events fanned out", labels: ["kind": kind]).increment()
    }

    func coalesced(_ count: Int = 1) {
        registry.counter("la_events_coalesced_total", help: "Plain updates skipped because a newer event of the match was queued")
            .increment(by: count)
    }

    /// A plain update that will not be sent because a newer event of its match replaced it while it was held.
    func superseded(priority: Int) {
        registry.counter("la_updates_superseded_total", help: "Updates replaced by a newer state of their match before fan-out",
                         labels: ["priority": String(priority)]).increment()
    }

    /// A plain update held back because its match's previous fan-out was still being sent (`PlainUpdateGate`).
    func held() {
        registry.counter("la_updates_held_total", help: "Plain updates held while their match's previous fan-out was being sent")
            .increment()
    }

    /// Plain updates held right now (one per match at most).
    func heldUpdates(_ count: Int) {
        registry.gauge("la_updates_held", help: "Plain updates waiting for their match's previous fan-out").set(Double(count))
    }

    /// How long a held plain update waited before its fan-out.
    func heldSeconds(_ seconds: Double) {
        registry.histogram("la_update_hold_seconds", help: "Time a plain update was held before its fan-out",
                           buckets: [0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 30, 60]).observe(max(0, seconds))
    }

    func repeated() {
        registry.counter("la_events_repeated_total", help: "Plain updates skipped because the match's last push carried the same state and time")
            .increment()
    }

    /// `la_event_jobs_acked_seconds{priority}`: from the poll that saw an event's content (its `emittedAt`) until
    /// every push job of the event is acknowledged by the broker — the pipeline's share of a push's freshness before
    /// apns-sender takes over.
    func eventAcknowledged(priority: Int, seconds: Double) {
        registry.histogram("la_event_jobs_acked_seconds", help: "From the poll that saw an event to its push jobs acknowledged",
                           labels: ["priority": String(priority)],
                           buckets: [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 30, 60, 120])
            .observe(max(0, seconds))
    }

    func fannedOut(jobs: Int, targets: Int, seconds: Double, broadcasts: Int = 0) {
        registry.counter("la_jobs_produced_total", help: "Push jobs produced and acknowledged").increment(by: jobs)
        registry.counter("la_broadcast_jobs_total", help: "Broadcast jobs produced and acknowledged (one per event per environment with a channel)")
            .increment(by: broadcasts)
        // APNs requests one event costs, by delivery mode: a broadcast is one; a token target is one.
        registry.histogram("la_apns_requests_per_event", help: "APNs requests one event costs, by delivery mode", labels: ["mode": "broadcast"],
                           buckets: Self.requestBuckets).observe(Double(broadcasts))
        registry.histogram("la_apns_requests_per_event", help: "APNs requests one event costs, by delivery mode", labels: ["mode": "token"],
                           buckets: Self.requestBuckets).observe(Double(targets))
        registry.counter("la_targets_total", help: "Targets (devices) fanned out").increment(by: targets)
        registry.histogram("la_fanout_seconds", help: "Time to fan one event out, stream to last acknowledgement",
                           buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]).observe(seconds)
    }

    static let requestBuckets: [Double] = [0, 1, 2, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]

    func badMessage(topic: String, kind: String) {
        registry.counter("la_bad_messages_total", help: "Messages skipped as unreadable", labels: ["topic": topic, "kind": kind])
            .increment()
    }

    func payloadTrimmed() {
        registry.counter("la_payload_trimmed_total", help: "Payloads over 4,096 bytes sent with a trimmed state").increment()
    }

    func payloadUnsendable() {
        registry.counter("la_payload_unsendable_total", help: "Events skipped because no payload fit in 4,096 bytes").increment()
    }

    func rowsEnded(_ reason: String, _ count: Int) {
        registry.counter("la_rows_ended_total", help: "live_activities rows set to ended", labels: ["reason": reason])
            .increment(by: count)
    }

    func tokenInvalid(_ outcome: String) {
        registry.counter("la_token_invalid_total", help: "push.token-invalid messages by outcome", labels: ["outcome": outcome])
            .increment()
    }

    func failure(_ stage: String) {
        registry.counter("la_failures_total", help: "Retried failures by stage", labels: ["stage": stage]).increment()
    }
}
