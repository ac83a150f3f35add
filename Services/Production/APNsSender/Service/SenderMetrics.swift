import Contracts
import Foundation
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
    /// Jobs read again after their partition came back to this process while it was still sending them (not started twice).
    let rereadWhileRunning: Counter
    /// Jobs read again after their partition came back to this process, which had finished them a moment before.
    let rereadFinished: Counter
    /// Freshness per match, for the matches of the last hour.
    let matchFreshness: MatchFreshnessSeries
    /// The instruments of every label value the sender uses, made once (exported at 0 from the start, and no registry
    /// look-up per job or message); an unexpected value still goes through the registry.
    private let jobsByResult: [String: Counter]
    private let targetsByAction: [String: Counter]
    private let queuedByPriority: [Int: Gauge]
    static let jobResults = ["delivered", "dead", "superseded", "invalid", "abandoned"]
    static let targetActions = ["delivered", "token_invalid", "dead", "superseded", "after_end"]
    static let priorities = [1, 5, 10]

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
        rereadWhileRunning = registry.counter(
            "apns_sender_reread_while_running_total",
            help: "Jobs read again after a rebalance gave their partition back while this process still sent them (not started twice)")
        rereadFinished = registry.counter(
            "apns_sender_reread_finished_total",
            help: "Jobs read again after a rebalance gave their partition back, finished by this process a moment before (not sent again)")
        matchFreshness = MatchFreshnessSeries(registry: registry)
        jobsByResult = Dictionary(uniqueKeysWithValues: Self.jobResults.map { ($0, Self.jobCounter(registry, $0)) })
        targetsByAction = Dictionary(uniqueKeysWithValues: Self.targetActions.map { ($0, Self.targetCounter(registry, $0)) })
        queuedByPriority = Dictionary(uniqueKeysWithValues: Self.priorities.map { ($0, Self.queuedGauge(registry, $0)) })
        for priority in [5, 10] {
            registry.counter("apns_sender_superseded_total", help: "Targets not sent because a newer state of their match went to them",
                             labels: ["priority": String(priority)]).increment(by: 0)
        }
    }

    /// Jobs finished, by result: `delivered` (every target answered, none dead), `dead` (some
    /// targets dead-lettered), `invalid` (the job itself was unusable), `abandoned` (shutdown).
    func jobFinished(_ result: String) {
        (jobsByResult[result] ?? Self.jobCounter(registry, result)).increment()
    }

    private static func jobCounter(_ registry: MetricsRegistry, _ result: String) -> Counter {
        registry.counter("apns_sender_jobs_total", help: "Push jobs processed by result", labels: ["result": result])
    }

    private static func targetCounter(_ registry: MetricsRegistry, _ action: String) -> Counter {
        registry.counter("apns_sender_targets_total", help: "Targets with a final answer by action", labels: ["action": action])
    }

    private static func queuedGauge(_ registry: MetricsRegistry, _ priority: Int) -> Gauge {
        registry.gauge("apns_sender_queued_jobs", help: "Push jobs read off the topic and not started yet, by priority",
                       labels: ["priority": String(priority)])
    }

    /// Broadcast jobs by how they ended: `delivered`, `channel_invalid`, `superseded`, `dead`, `abandoned`.
    func broadcastFinished(_ outcome: String) {
        registry.counter("apns_sender_broadcasts_total", help: "Broadcast jobs by outcome", labels: ["outcome": outcome]).increment()
    }

    /// Targets of an update not sent because their key already began sending a newer state of the match (`SendOrder`):
    /// the device gets the newer one instead. By the job's priority (10: a key event's alert that could not go
    /// before a newer state did — a retry, or a re-read event).
    func superseded(priority: Int, count: Int) {
        guard count > 0 else { return }
        registry.counter("apns_sender_superseded_total", help: "Targets not sent because a newer state of their match went to them",
                         labels: ["priority": String(priority)]).increment(by: count)
    }

    /// Jobs read ahead and not started yet, by priority (`JobLookahead`).
    func lookahead(_ counts: [Int: Int]) {
        for (priority, count) in counts {
            (queuedByPriority[priority] ?? Self.queuedGauge(registry, priority)).set(Double(count))
        }
    }

    /// Final per-target answers: `delivered`, `token_invalid`, `dead`, `superseded`, `after_end` (another end push had
    /// ended the device's activity).
    func targetsFinished(_ action: String, count: Int) {
        guard count > 0 else { return }
        (targetsByAction[action] ?? Self.targetCounter(registry, action)).increment(by: count)
    }

    /// A message on the jobs topic that is not a usable job, by `MessageDecodeError.kind` or `invalid_job`.
    func rejected(kind: String) {
        registry.counter("apns_sender_rejected_messages_total", help: "Unusable messages skipped", labels: ["kind": kind])
            .increment()
    }

    /// Freshness of accepted pushes: `push_freshness_seconds{kind,priority,mode}` is APNs's 200 (at `now`) minus the
    /// job's `knownAt` (the poll that saw the content), observed once per delivered target (mode `token`) or once per
    /// accepted broadcast (mode `broadcast`), and per match in `push_freshness_match_seconds` (`MatchFreshnessSeries`);
    /// `push_feed_age_seconds` the same from the feed's newest-ball time, when the job has one no more than an hour old (older: a replay of history, or a feed clock far off). Jobs without
    /// `knownAt` (starts from stored state) are not observed.
    func accepted(_ job: PushJob, count: Int, at now: Date) {
        guard count > 0, let knownAt = job.knownAt else { return }
        let labels = ["kind": job.kind.rawValue, "priority": String(job.priority), "mode": job.channel == nil ? "token" : "broadcast"]
        let nowMilliseconds = now.timeIntervalSince1970 * 1000
        let freshness = max(0, (nowMilliseconds - Double(knownAt)) / 1000)
        registry.histogram("push_freshness_seconds", help: "APNs acceptance minus the poll that saw the content, per push",
                           labels: labels, buckets: Self.freshnessBuckets)
            .observe(freshness, times: count)
        matchFreshness.observe(match: job.matchId, priority: job.priority, freshness: freshness, count: count, at: now)
        if let ballAt = job.ballAt, case let age = (nowMilliseconds - Double(ballAt)) / 1000, (0...3600).contains(age) {
            registry.histogram("push_feed_age_seconds", help: "APNs acceptance minus the feed's time of the newest ball, per push",
                               labels: labels, buckets: Self.freshnessBuckets)
                .observe(age, times: count)
        }
    }

    static let freshnessBuckets: [Double] = [0.25, 0.5, 1, 1.5, 2, 2.5, 3, 5, 7.5, 10, 15, 30, 60, 120, 300]
}
