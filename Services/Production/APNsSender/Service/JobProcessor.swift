import APNs
import Contracts
import Foundation
import Kafka
import Runtime

/// Sends one job to all its targets until every target has a final answer:
/// - 200 → delivered;
/// - 410 Unregistered / ExpiredToken, 400 BadDeviceToken → a `TokenInvalid` (key matchId);
/// - 429 / 500 / 503 / no answer → sent again per `RetryScheduler` (jittered back-off, within
///   the job's expiration; bounded attempts for priority 5, until the expiration for priority 10);
/// - anything else, or expired / exhausted → listed in one `DeadPush` (key jobId) with the last error.
/// The follow-up records are produced and acknowledged before `process` returns `.finished`.
struct JobProcessor: Sendable {
    /// How a job ended.
    enum Result: Sendable, Equatable {
        /// Every target has a final answer and every follow-up record is on its topic: commit.
        case finished(delivered: Int, tokenInvalid: Int, dead: Int)
        /// Cancelled (shutdown past the grace period) or the follow-ups could not be produced:
        /// do not commit; the job is read again after a restart (apns-ids are reused).
        case abandoned
    }

    let client: any APNsTransport
    let publisher: ResultPublisher
    let scheduler: RetryScheduler
    let metrics: SenderMetrics
    let logger: Logger
    /// Latest-wins per broadcast channel, shared by every job this processor runs.
    var coalescer = BroadcastCoalescer()
    /// One id per sending of a job, written in its outcome.
    var sendIDs = OutcomeSendIDs()

    /// Processes a decoded, valid job. Between retry rounds the job waits through `slot`, which
    /// parks it without a sending slot when its `JobSet` has room. With `order`, each round of an update or end
    /// follows the per-device order of its Kafka `key` (`SendOrder`): an update whose key already began a newer
    /// state is superseded (its remaining targets are not sent, counted in `apns_sender_superseded_total`), and a target
    /// whose activity another job's end push already ended is not sent (`apns_sender_targets_total{action="after_end"}`).
    ///
    /// With `progress`, every round's final answers are marked as they come (`ProgressMarks`), and the targets that
    /// marks read back after a crash already answer (`progress.known`) are not sent again: their answers go into the
    /// outcome as marked, and a refused token's `TokenInvalid` is produced without a push.
    func process(_ job: PushJob, key: String = "", order: SendOrder? = nil, slot: JobSlot = .unmanaged(), progress: JobProgress? = nil)
        async -> Result
    {
        if let channel = job.channel { return await processBroadcast(job, channel: channel, slot: slot) }
        let started = ContinuousClock.now
        metrics.jobsInFlight.increment()
        defer { metrics.jobsInFlight.decrement() }
        let payload = Array(job.payload.utf8)
        var ledger = OutcomeLedger(job)
        /// Indices into `job.targets` of the targets still without a final answer.
        var remaining = Array(job.targets.indices)
        var delivered = 0
        var invalid: [TokenInvalid] = []
        var dead: [PushTarget] = []
        var lastError: String?
        var cause = DeadPush.Cause.exhausted
        var attempt = 0
        if let known = progress?.known, !remaining.isEmpty {
            let reused = reuse(known, of: job, ledger: &ledger)
            delivered += reused.accepted
            invalid += reused.invalid
            remaining.removeAll { known.answers($0) }
            if reused.accepted > 0 { order?.noteSent(job, key: key) }
        }
        if scheduler.isExpired(job.expiration) {
            dead = remaining.map { job.targets[$0] }
            lastError = "expired before sending (apns-expiration \(job.expiration))"
            ledger.finish(remaining, as: .dead, why: lastError ?? "expired")
            remaining = []
            cause = .expired
        }
        var superseded = 0
        var afterEnd = 0
        while !remaining.isEmpty {
            if let order {
                let round = order.beginRound(job, key: key, targets: remaining)
                if round == .superseded {
                    superseded += remaining.count
                    metrics.superseded(priority: job.priority, count: remaining.count)
                    ledger.finish(remaining, as: .superseded, why: "a newer state of this device was sent first")
                    remaining = []
                    break
                }
                let ended = round == .allEnded ? remaining : round.skipping
                if !ended.isEmpty {
                    afterEnd += ended.count
                    ledger.finish(ended, as: .superseded, why: "the device's activity already got another end push")
                    remaining.removeAll(where: Set(ended).contains)
                    if remaining.isEmpty {
                        if round != .allEnded { order.endRound(job, key: key) }  // never: a begun round sends something
                        break
                    }
                }
            }
            attempt += 1
            let outcomes = await sendRound(job, payload: payload, targets: remaining, progress: progress)
            order?.endRound(job, key: key, accepted: job.kind == .liveActivityEnd
                ? zip(remaining, outcomes).compactMap { $0.1.action == .delivered ? $0.0 : nil } : [])
            if Task.isCancelled { return abandon(job) }
            let answeredAt = Int64(scheduler.clock.now().timeIntervalSince1970 * 1000)
            var again: [Int] = []
            var acceptedNow = 0
            for (index, outcome) in zip(remaining, outcomes) {
                let target = job.targets[index]
                switch outcome.action {
                case .delivered:
                    acceptedNow += 1
                    ledger.answered(index, outcome, final: .accepted, at: answeredAt)
                case .tokenInvalid:
                    ledger.answered(index, outcome, final: .refused, at: answeredAt)
                    invalid.append(TokenInvalid(
                        token: target.token, tokenKind: Self.tokenKind(for: job.kind), matchId: job.matchId,
                        userId: target.userId, deviceId: target.deviceId,
                        reason: outcome.reason?.rawValue ?? "HTTP \(outcome.status ?? 0)", apnsTimestamp: outcome.apnsTimestamp))
                case .retry, .regenerateJWTAndRetry:
                    ledger.answered(index, outcome, final: nil, at: answeredAt)
                    again.append(index)
                    lastError = Self.describe(outcome)
                case .permanentFailure, .channelInvalid:  // a channel reason cannot answer a device push
                    ledger.answered(index, outcome, final: .dead, at: answeredAt)
                    dead.append(target)
                    lastError = Self.describe(outcome)
                    cause = .permanent
                }
            }
            delivered += acceptedNow
            metrics.accepted(job, count: acceptedNow, at: scheduler.clock.now())
            remaining = again
            guard !remaining.isEmpty else { break }
            switch scheduler.decide(afterAttempt: attempt, expiration: job.expiration, priority: job.priority) {
            case .retry(let delay):
                metrics.retries.increment(by: remaining.count)
                logger.debug("retrying pushes", [
                    "jobId": job.jobId, "targets": String(remaining.count), "attempt": String(attempt),
                    "delayMs": String(delay.wholeMilliseconds),
                    "lastError": lastError ?? "",
                ])
                metrics.jobsWaiting.increment()
                let waited = (try? await slot.wait(delay)) != nil
                metrics.jobsWaiting.decrement()
                guard waited else { return abandon(job) }
            case .giveUp(let why):
                dead.append(contentsOf: remaining.map { job.targets[$0] })
                ledger.finish(remaining, as: .dead, why: "\(why)")
                remaining = []
                lastError = "\(why): \(lastError ?? "no answer")"
                cause = why == .expired ? .expired : .exhausted
            }
        }
        order?.releaseEnded(job, key: key, tokens: dead.map(\.token))
        var records: [KafkaOutgoingMessage] = []
        do {
            records = try invalid.map(publisher.tokenInvalid)
            records.append(publisher.outcome(ledger.encoded(finishedAt: Int64(scheduler.clock.now().timeIntervalSince1970 * 1000), sendId: sendIDs.next()),
                                             of: job, key: key))
            if !dead.isEmpty {
                let record = DeadPush(
                    job: job, undelivered: dead, cause: cause, lastError: lastError ?? "unknown",
                    diedAt: Int64(scheduler.clock.now().timeIntervalSince1970 * 1000))
                records.append(try publisher.dead(record))
            }
        } catch {
            logger.error("cannot encode job results", ["jobId": job.jobId, "error": "\(error)"])
            return abandon(job)
        }
        guard await publisher.publish(records) else { return abandon(job) }
        metrics.tokenInvalidProduced.increment(by: invalid.count)
        if !dead.isEmpty {
            metrics.deadProduced.increment()
            logger.warning("pushes dead-lettered", [
                "jobId": job.jobId, "undelivered": String(dead.count), "lastError": lastError ?? "",
            ])
        }
        metrics.targetsFinished("delivered", count: delivered)
        metrics.targetsFinished("token_invalid", count: invalid.count)
        metrics.targetsFinished("dead", count: dead.count)
        metrics.targetsFinished("superseded", count: superseded)
        metrics.targetsFinished("after_end", count: afterEnd)
        metrics.jobFinished(!dead.isEmpty ? "dead" : superseded + afterEnd == job.targets.count ? "superseded" : "delivered")
        metrics.jobSeconds.observe(ContinuousClock.now - started)
        return .finished(delivered: delivered, tokenInvalid: invalid.count, dead: dead.count)
    }

    /// Dead-letters a job that cannot be sent as it is (every target undelivered).
    func deadLetter(_ job: PushJob, reason: String) async -> Result {
        let record = DeadPush(
            job: job, undelivered: job.targets, cause: .permanent, lastError: reason, diedAt: Int64(scheduler.clock.now().timeIntervalSince1970 * 1000))
        var ledger = OutcomeLedger(job)
        ledger.finish(Array(job.targets.indices), as: .dead, why: reason)
        let outcome = publisher.outcome(ledger.encoded(finishedAt: record.diedAt, sendId: sendIDs.next()), of: job, key: "")
        guard let message = try? publisher.dead(record), await publisher.publish([message, outcome]) else { return abandon(job) }
        metrics.deadProduced.increment()
        metrics.targetsFinished("dead", count: job.targets.count)
        metrics.jobFinished("invalid")
        return .finished(delivered: 0, tokenInvalid: 0, dead: job.targets.count)
    }

    /// One attempt for each target (indices into `job.targets`), all at once (a job has at most 1,000; the HTTP/2 pool
    /// queues what exceeds its streams). Outcomes in the order of `targets`. With marks on, the answers are marked
    /// as they come, every `ProgressMarks.chunk` of them (reported from the connection's loop, one batch still).
    private func sendRound(_ job: PushJob, payload: [UInt8], targets: [Int], progress: JobProgress?) async -> [APNsOutcome] {
        let pushes = targets.map { APNsPush(job, payload: payload, target: job.targets[$0]) }
        guard let progress, progress.marks.isWriting else { return await client.send(pushes) }
        return await client.send(pushes, answered: APNsAnswerReport(every: progress.marks.chunk) { answers in
            progress.mark(job, answers: answers.map { (targets[$0.0], $0.1) })
        })
    }

    /// Puts the answers marks gave (`known`) into the ledger: accepted targets as delivered, refused ones as refused
    /// with their `TokenInvalid`. Returns how many of each.
    private func reuse(_ known: ProgressIndex.Entry, of job: PushJob, ledger: inout OutcomeLedger) -> (accepted: Int, invalid: [TokenInvalid]) {
        var accepted = 0
        var invalid: [TokenInvalid] = []
        for index in job.targets.indices where known.answers(index) {
            let target = job.targets[index]
            let apnsId = APNsID.derive(jobID: job.jobId, token: target.token)
            if let refusal = known.refused[index] {
                ledger.known(index, result: .refused, status: refusal.status, reason: refusal.reason, apnsId: apnsId, at: known.answeredAt)
                invalid.append(TokenInvalid(
                    token: target.token, tokenKind: Self.tokenKind(for: job.kind), matchId: job.matchId, userId: target.userId,
                    deviceId: target.deviceId, reason: refusal.reason, apnsTimestamp: refusal.apnsTimestamp))
            } else {
                ledger.known(index, result: .accepted, status: 200, reason: nil, apnsId: apnsId, at: known.answeredAt)
                accepted += 1
            }
        }
        return (accepted, invalid)
    }

    private func abandon(_ job: PushJob) -> Result {
        metrics.jobFinished("abandoned")
        logger.warning("job abandoned; it will be read again", ["jobId": job.jobId])
        return .abandoned
    }

    /// Which token of a device a job's kind uses.
    static func tokenKind(for kind: PushKind) -> TokenKind {
        switch kind {
        case .liveActivityUpdate, .liveActivityEnd: .update
        case .liveActivityStart: .pushToStart
        case .alert, .background: .device
        }
    }

    /// A short error text for a non-delivered outcome (never headers or the JWT).
    static func describe(_ outcome: APNsOutcome) -> String {
        if let status = outcome.status {
            return "HTTP \(status)" + (outcome.reason.map { " \($0.rawValue)" } ?? "")
        }
        return outcome.transportError ?? "no answer"
    }
}
