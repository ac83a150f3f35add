import Kafka
import Runtime

/// apns-sender's own metrics. The APNs client adds, per attempt: `apns_pushes_total{action,reason}`,
/// `apns_send_seconds` (latency histogram) and `apns_in_flight` (streams awaiting an answer).
struct SenderMetrics: Sendable {
    let registry: MetricsRegistry
    /// Jobs in progress.
    let jobsInFlight: Gauge
    /// Jobs waiting out a back-off between retry rounds.
    let jobsWaiting: Gauge
    /// Time from taking a job off the topic to its last final answer.
    let jobSeconds: Histogram
    /// Targets sent again after a retryable answer.
    let retries: Counter
    /// `TokenInvalid` messages produced.
    let tokenInvalidProduced: Counter
    /// `DeadPush` records produced (rejected messages included).
    let deadProduced: Counter
    /// Offset commits that failed (retried on the next round).

    init(registry: MetricsRegistry) {
        self.registry = registry
        jobsInFlight = registry.gauge("apns_sender_jobs_in_flight", help: "Push jobs being processed")
        jobsWaiting = registry.gauge("apns_sender_jobs_waiting", help: "Push jobs waiting out a back-off between retry rounds")
        jobSeconds = registry.histogram(
            "apns_sender_job_seconds", help: "Time from consuming a job to a final answer for every target",
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300])
        retries = registry.counter("apns_sender_retries_total", help: "Pushes sent again after 429/5xx/connection loss")
        tokenInvalidProduced = registry.counter("apns_sender_token_invalid_total", help: "TokenInvalid messages produced")
        deadProduced = registry.counter("apns_sender_dead_total", help: "Records produced to the dead-letter topic")
    }

    /// Jobs finished, by result: `delivered` (every target answered, none dead), `dead` (some
    /// targets dead-lettered), `invalid` (the job itself was unusable), `abandoned` (shutdown).
    func jobFinished(_ result: String) {
        registry.counter("apns_sender_jobs_total", help: "Push jobs processed by result", labels: ["result": result]).increment()
    }

    /// Broadcast jobs by how they ended: `delivered`, `channel_invalid`, `superseded`, `dead`, `abandoned`.
    func broadcastFinished(_ outcome: String) {
        registry.counter("apns_sender_broadcasts_total", help: "Broadcast jobs by outcome", labels: ["outcome": outcome]).increment()
    }

    /// Final per-target answers: `delivered`, `token_invalid`, `dead`.
    func targetsFinished(_ action: String, count: Int) {
        guard count > 0 else { return }
        registry.counter("apns_sender_targets_total", help: "Targets with a final answer by action", labels: ["action": action])
            .increment(by: count)
    }

    /// A message on the jobs topic that is not a usable job, by `MessageDecodeError.kind` or `invalid_job`.
    func rejected(kind: String) {
        registry.counter("apns_sender_rejected_messages_total", help: "Unusable messages skipped", labels: ["kind": kind])
            .increment()
    }

    /// Publishes the consumer's per-partition lag as `kafka_consumer_lag{topic,partition}` (`ConsumerLagGauge`).
    func record(lag: [KafkaPartitionLag]) {
        ConsumerLagGauge(registry: registry).record(lag)
    }
}
