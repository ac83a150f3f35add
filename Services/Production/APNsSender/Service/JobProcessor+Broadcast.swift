import APNs
import Contracts
import Foundation
import Kafka
import Runtime

extension APNsBroadcast {
    /// The broadcast of a broadcast job: `apns-expiration` 0 on a No Message Stored channel (APNs refuses any other
    /// value there), the job's expiration otherwise; the `apns-request-id` derived from the job and the channel,
    /// so a replayed job reuses it.
    init(_ job: PushJob, channel: PushChannel) {
        self.init(payload: Array(job.payload.utf8), channel: APNsChannelID(channel.channelId),
                  environment: channel.env == .production ? .production : .sandbox, priority: job.priority,
                  expiration: channel.storagePolicy == 0 ? 0 : job.expiration,
                  requestID: APNsID.derive(jobID: job.jobId, token: channel.channelId))
    }
}

extension JobProcessor {
    /// Sends a broadcast job: one request to the channel until APNs accepts it. A broadcast has no per-device
    /// answer: 429 and 5xx are retried with back-off until the job's expiration at any priority (one request
    /// carries every subscriber's update); ChannelNotRegistered / BadChannelId becomes a `TokenInvalid` of kind
    /// `channel` (la-coordinator marks the channel invalid, the poller creates it again); anything else, or the
    /// expiration, a `DeadPush` with no targets. A plain update overtaken by a newer job of its channel is
    /// dropped unsent (`BroadcastCoalescer`).
    func processBroadcast(_ job: PushJob, channel: PushChannel, slot: JobSlot) async -> Result {
        let started = ContinuousClock.now
        metrics.jobsInFlight.increment()
        defer { metrics.jobsInFlight.decrement() }
        coalescer.taken(job, channel: channel)
        let broadcast = APNsBroadcast(job, channel: channel)
        var attempt = 0
        var lastError = "expired before sending (apns-expiration \(job.expiration))"
        var cause = DeadPush.Cause.expired
        var dead = scheduler.isExpired(job.expiration)
        var lastStatus: Int?
        var lastReason: String?
        var tries = 0
        let sendId = sendIDs.next()
        func outcomeMessage(_ result: PushResult) -> KafkaOutgoingMessage {
            publisher.outcome(OutcomeLedger.broadcast(job, channel: channel, result: result, status: lastStatus, reason: lastReason ?? (result == .superseded ? "a newer state of this channel was sent first" : nil),
                                                      tries: tries, at: Int64(scheduler.clock.now().timeIntervalSince1970 * 1000), sendId: sendId), key: "")
        }
        while !dead {
            if coalescer.isSuperseded(job, channel: channel) {
                guard await publisher.publish([outcomeMessage(.superseded)]) else { return abandonBroadcast(job) }
                metrics.broadcastFinished("superseded")
                metrics.jobFinished("superseded")
                return .finished(delivered: 0, tokenInvalid: 0, dead: 0)
            }
            attempt += 1
            let answer = await client.sendBroadcast(broadcast)
            if Task.isCancelled { return abandonBroadcast(job) }
            tries += 1
            lastStatus = answer.status
            lastReason = answer.reason?.rawValue ?? answer.transportError
            let outcome = answer
            switch outcome.action {
            case .delivered:
                guard await publisher.publish([outcomeMessage(.accepted)]) else { return abandonBroadcast(job) }
                metrics.accepted(job, count: 1, at: scheduler.clock.now())
                coalescer.accepted(job, channel: channel)
                metrics.broadcastFinished("delivered")
                metrics.jobFinished("delivered")
                metrics.jobSeconds.observe(ContinuousClock.now - started)
                return .finished(delivered: 1, tokenInvalid: 0, dead: 0)
            case .channelInvalid:
                let lost = TokenInvalid(token: channel.channelId, tokenKind: .channel, matchId: job.matchId, userId: "", deviceId: "",
                                        reason: outcome.reason?.rawValue ?? "ChannelNotRegistered", apnsTimestamp: nil)
                guard let record = try? publisher.tokenInvalid(lost), await publisher.publish([record, outcomeMessage(.refused)]) else { return abandonBroadcast(job) }
                metrics.tokenInvalidProduced.increment()
                metrics.broadcastFinished("channel_invalid")
                metrics.jobFinished("delivered")
                logger.warning("APNs no longer knows a broadcast channel", ["jobId": job.jobId, "match_id": job.matchId,
                                                                             "reason": lost.reason])
                return .finished(delivered: 0, tokenInvalid: 1, dead: 0)
            case .retry, .regenerateJWTAndRetry:
                lastError = Self.describe(outcome)
                switch scheduler.decide(afterAttempt: attempt, expiration: job.expiration, priority: 10) {
                case .retry(let delay):
                    metrics.retries.increment()
                    metrics.jobsWaiting.increment()
                    let waited = (try? await slot.wait(delay)) != nil
                    metrics.jobsWaiting.decrement()
                    guard waited else { return abandonBroadcast(job) }
                case .giveUp(let why):
                    lastError = "\(why): \(lastError)"
                    cause = why == .expired ? .expired : .exhausted
                    dead = true
                }
            case .permanentFailure, .tokenInvalid:
                lastError = Self.describe(outcome)
                cause = .permanent
                dead = true
            }
        }
        let record = DeadPush(job: job, undelivered: [], cause: cause, lastError: lastError,
                              diedAt: Int64(scheduler.clock.now().timeIntervalSince1970 * 1000))
        guard let message = try? publisher.dead(record), await publisher.publish([message, outcomeMessage(.dead)]) else { return abandonBroadcast(job) }
        metrics.deadProduced.increment()
        metrics.broadcastFinished("dead")
        metrics.jobFinished("dead")
        logger.warning("broadcast dead-lettered", ["jobId": job.jobId, "match_id": job.matchId, "lastError": lastError])
        return .finished(delivered: 0, tokenInvalid: 0, dead: 1)
    }

    private func abandonBroadcast(_ job: PushJob) -> Result {
        metrics.broadcastFinished("abandoned")
        metrics.jobFinished("abandoned")
        logger.warning("broadcast job abandoned; it will be read again", ["jobId": job.jobId])
        return .abandoned
    }

    /// A short error text for a broadcast not accepted.
    static func describe(_ outcome: APNsBroadcastOutcome) -> String {
        if let status = outcome.status {
            return "HTTP \(status)" + (outcome.reason.map { " \($0.rawValue)" } ?? "")
        }
        return outcome.transportError ?? "no answer"
    }
}
