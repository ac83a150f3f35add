import Contracts
import PushComposition
import DeadLetter
import FanOut
import Kafka
import LiveActivities
import Matches
import Runtime

/// Handles one batch of `match.events` messages: decodes them, applies latest-wins, skips plain
/// updates that would repeat the match's last push (`RepeatedUpdateFilter`), fans each kept
/// event out (and ends the match's rows after an end event's jobs are acknowledged), and returns the
/// offsets to commit for the whole batch — including skipped and unreadable messages.
struct EventBatchProcessor: Sendable {
    let executor: FanOutExecutor
    /// Ends the match's rows once its end (or a day's) is fanned out.
    let activities: LiveActivityStore
    /// Says whether a day's end still applies (`matches.close_of_play`).
    let matches: MatchStore
    let policy: PushPolicy
    let logger: Logger
    let metrics: CoordinatorMetrics
    var maximumBackoff: Duration = .seconds(5)
    /// Where unreadable messages are parked before their offsets are committed (nil: only counted).
    var deadLetters: DeadLetterPublisher? = nil
    /// Plain updates that would repeat the match's last push (same state, same time) are skipped.
    var repeats = RepeatedUpdateFilter()
    /// Told where each fan-out's jobs are, so the delivery recorder waits for them to be sent (nil: not told).
    var recordDeferral: RecordDeferral? = nil

    /// Processes `messages` (in partition order as polled); returns the next offset per partition (the caller
    /// commits no further than `gate.holdFloor`, where a held plain update waits).
    ///
    /// Each kept event goes through `gate`: key events and ends are fanned out at once, a plain update of a match
    /// whose previous fan-out apns-sender is still sending is held (a newer one replaces it).
    /// A failing event is retried with a bounded backoff until it succeeds, the task is cancelled, or
    /// `stillOwned` throws (it is never skipped: that would lose a key event or an end). Events before it
    /// are not redone.
    /// - Parameter stillOwned: asked before each retry; throws when the batch's partitions are no longer
    ///   this member's (``KafkaConsumer/requireAssignment()``), which abandons the batch.
    /// - Throws: `CancellationError` when cancelled mid-batch, or what `stillOwned` threw (nothing of the
    ///   batch is committed then).
    func process(_ messages: [KafkaMessage], gate: inout PlainUpdateGate,
                 stillOwned: () throws -> Void = {}) async throws -> [KafkaTopicPartition: Int64] {
        var offsets: [KafkaTopicPartition: Int64] = [:]
        var events: [(event: MatchBusEvent, message: KafkaMessage)] = []
        for message in messages {
            offsets[message.topicPartition] = max(offsets[message.topicPartition] ?? 0, message.offset + 1)
            do {
                events.append((try MessageCodec.decode(MatchBusEvent.self, from: message.value), message))
            } catch {
                try await deadLetters?.publish(message, kind: error.kind, error: error.description)
                metrics.badMessage(topic: message.topic, kind: error.kind)
                logger.warning("skipping unreadable match event: \(error)", [
                    "event": "bad_message", "partition": String(message.partition), "offset": String(message.offset),
                ])
            }
        }
        let keep = LatestWins.keep(events.map(\.event))
        let dropped = keep.count(where: { !$0 })
        if dropped > 0 { metrics.coalesced(dropped) }
        for ((event, message), kept) in zip(events, keep) where kept {
            switch gate.admit(event, source: message.topicPartition, offset: message.offset, now: nowMilliseconds) {
            case .stale:
                metrics.superseded(priority: 5)
            case .hold(let superseded):
                if superseded != nil { metrics.superseded(priority: 5) }
                metrics.held()
            case .fanOutNow(let superseded):
                if superseded != nil { metrics.superseded(priority: 5) }
                try await fanOut(event, gate: &gate, stillOwned: stillOwned)
            }
        }
        metrics.heldUpdates(gate.heldCount)
        return offsets
    }

    /// Fans out the held plain updates whose match is clear now (`gate.release`).
    func releaseHeld(gate: inout PlainUpdateGate, stillOwned: () throws -> Void = {}) async throws {
        let now = nowMilliseconds
        for update in gate.release(now: now) {
            metrics.heldSeconds(Double(now - update.heldSince) / 1000)
            try await fanOut(update.event, gate: &gate, stillOwned: stillOwned)
        }
        metrics.heldUpdates(gate.heldCount)
    }

    /// Fans one admitted event out (unless it repeats the match's last push) and tells `gate` where its jobs are.
    private func fanOut(_ event: MatchBusEvent, gate: inout PlainUpdateGate, stillOwned: () throws -> Void) async throws {
        if repeats.isRepeat(event) {
            metrics.repeated()
            logger.debug("plain update repeats the last push, not sent", ["event_id": event.eventId, "match_id": event.matchId])
            return
        }
        let startedAt = nowMilliseconds
        var result: FanOutResult?
        try await retrying(event, stillOwned: stillOwned) { result = try await handle(event) }
        repeats.fannedOut(event)
        if let result {
            gate.fannedOut(matchId: event.matchId, startedAt: startedAt, highestOffsets: result.highestOffsets, now: nowMilliseconds)
            recordDeferral?.produced(result.highestOffsets)
        }
    }

    var nowMilliseconds: Int64 { Int64((executor.clock.now().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Fans one event out; for an end event (the match's or a day's), then ends the match's rows. Returns what the
    /// fan-out did, or nil when the event was not sent (a late close of play, a payload that cannot fit).
    @discardableResult
    func handle(_ event: MatchBusEvent) async throws -> FanOutResult? {
        if event.endsDay, try await !matches.isAtCloseOfPlay(event.matchId) {
            metrics.processed("day_end_late")
            logger.warning("close of play handled after play resumed, not sent", ["event": "day_end_late", "event_id": event.eventId,
                                                                                  "match_id": event.matchId])
            return nil
        }
        let plan: EventPushPlan
        do {
            plan = try EventPushPlan(event: event, policy: policy)
        } catch {
            metrics.payloadUnsendable()
            logger.error("no payload fits for event, skipping it: \(error)", ["event": "payload_unsendable", "event_id": event.eventId])
            return nil
        }
        if plan.trimStep > 0 {
            metrics.payloadTrimmed()
            logger.warning("payload over 4,096 bytes, sent with a trimmed state",
                           ["event": "payload_trimmed", "event_id": event.eventId, "step": String(plan.trimStep)])
        }
        let result = try await executor.fanOut(plan)
        metrics.fannedOut(jobs: result.jobs, targets: result.targets, seconds: result.seconds, broadcasts: result.broadcasts)
        metrics.eventAcknowledged(priority: plan.priority,
                                  seconds: executor.clock.now().timeIntervalSince1970 - Double(event.emittedAt) / 1000)
        metrics.processed(event.endsMatch ? "end" : event.endsDay ? "day_end" : plan.priority >= 10 ? "key" : "update")
        if event.endsMatch {
            let ended = try await activities.endMatch(event.matchId)
            metrics.rowsEnded(LiveActivityEndReason.matchEnd.rawValue, ended)
        } else if event.endsDay {
            let ended = try await activities.endDay(event.matchId)
            metrics.rowsEnded(LiveActivityEndReason.dayEnd.rawValue, ended)
        }
        logger.debug("event fanned out", [
            "event_id": event.eventId, "match_id": event.matchId, "jobs": String(result.jobs), "targets": String(result.targets),
            "broadcasts": String(result.broadcasts),
        ])
        return result
    }

    private func retrying(_ event: MatchBusEvent, stillOwned: () throws -> Void, _ work: () async throws -> Void) async throws {
        var backoff = Backoff(initial: .milliseconds(100), maximum: maximumBackoff)
        while true {
            try Task.checkCancellation()
            do {
                try await work()
                return
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                metrics.failure("fanout")
                logger.error("fan-out failed, retrying: \(error)", ["event": "retry", "event_id": event.eventId])
                try stillOwned()
                try await Task.sleep(for: backoff.next())
            }
        }
    }
}
