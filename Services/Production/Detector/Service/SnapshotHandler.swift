import Contracts
import FeedHistory
import DeadLetter
import Detection
import Kafka
import Runtime

/// Where match events go: Kafka in the service (acknowledged sends), anything in tests.
protocol MatchEventPublisher: Sendable {
    /// Produces `events` in order, keyed by matchId; returns once every one is acknowledged.
    func publish(_ events: [MatchBusEvent]) async throws
}

/// Publishes to `match.events` with one awaited delivery report per event (in order).
struct KafkaMatchEventPublisher: MatchEventPublisher {
    let producer: KafkaProducer
    var topic = Topic.matchEvents.name

    func publish(_ events: [MatchBusEvent]) async throws {
        for event in events {
            _ = try await producer.send(topic: topic, key: event.matchId, value: try MessageCodec.encode(event))
        }
    }
}

/// Where the detector reads a match's deliveries as of a snapshot when it missed a link of the chain: the
/// poller's `feed_balls` in the service, anything in tests.
protocol BallHistory: Sendable {
    /// The JSON of every delivery of `matchId` as of snapshot `seq`, in delivery order.
    func balls(matchId: String, asOf seq: Int64) async throws -> [String]
}

extension FeedBallStore: BallHistory {}

/// Handles one `sportmonks.fixtures` message: decode, rebuild the whole fixture (`BallChains`, from the
/// history when a link is missing), load state, detect, produce, save.
/// Returns normally when the message may be committed; throws when it must be retried.
struct SnapshotHandler: Sendable {
    let detector: MatchDetector
    let store: DetectorStateStore
    let history: any BallHistory
    let publisher: any MatchEventPublisher
    let logger: Logger
    let metrics: DetectorMetrics
    /// Where unreadable messages are parked (nil: only counted and skipped, as in unit tests).
    var deadLetters: DeadLetterPublisher? = nil
    /// Decoded rows of each match's last snapshot, reused when the next snapshot repeats them byte for byte
    /// (keyed by the message key, the matchId; a match's cache is dropped when it ends).
    var reuseCaches = SnapshotReuseCaches()
    /// Each match's deliveries as of its latest snapshot.
    var chains = BallChains()

    /// What became of a message.
    enum Result: Equatable {
        case skipped(reason: String)
        /// A page of a poll whose later pages follow: applied to the ball set, nothing detected yet.
        case pending
        case processed(disposition: DetectionOutcome.Disposition, events: Int)
    }

    /// - Parameter source: the Kafka message the bytes came from; an unreadable one is dead-lettered
    ///   (acknowledged) before this returns.
    func handle(_ bytes: [UInt8], key: String?, source: KafkaMessage? = nil) async throws -> Result {
        let decoded: SnapshotDecoding.Decoded
        do {
            decoded = try SnapshotDecoding.decode(bytes, reusing: key.map { reuseCaches.cache(for: $0) })
        } catch {
            return try await reject(kind: error.kind, error: error.description, key: key, source: source)
        }
        var step = chains.apply(decoded)
        if case .needsHistory = step {
            let rows = try await history.balls(matchId: decoded.matchId, asOf: decoded.seq)
            do {
                step = try chains.restore(decoded, history: try SnapshotDecoding.balls(history: rows, matchId: decoded.matchId))
            } catch let error as BallChainError {
                return try await reject(kind: error.kind, error: error.description, key: key, source: source)
            } catch let error as SnapshotDecodeError {
                return try await reject(kind: error.kind, error: error.description, key: key, source: source)
            }
            metrics.resync()
            logger.info("rebuilt the ball set from the history", ["event": "ball_history_resync", "match_id": decoded.matchId,
                                                                   "seq": String(decoded.seq)])
        }
        guard case .assembled(let fixture) = step else { return .pending }
        let matchId = decoded.matchId
        let previous = try await store.load(matchId: matchId)
        let outcome = detector.process(fixture: fixture, matchId: matchId, polledAt: decoded.polledAt, state: previous)
        if let status = outcome.unknownStatus {
            logger.warning("unknown status string", ["event": "unknown_status", "match_id": matchId, "status": status])
            metrics.unknownStatus()
        }
        if !outcome.correctedBallIds.isEmpty {
            logger.info("corrected balls", ["event": "corrections", "match_id": matchId,
                                             "balls": outcome.correctedBallIds.map(String.init).joined(separator: ",")])
            metrics.corrections(outcome.correctedBallIds.count)
        }
        for contradiction in outcome.contradictions {
            logger.warning("feed contradicts its balls; the balls are shown", ["event": "feed_contradiction", "match_id": matchId,
                                                                               "kind": contradiction.kind, "detail": contradiction.description])
            metrics.contradiction(contradiction.kind)
        }
        metrics.snapshot(outcome.disposition.rawValue)
        if outcome.disposition == .scoreBackwards {
            logger.warning("feed score went backwards with no ball changed; the snapshot is ignored",
                           ["event": "score_backwards", "match_id": matchId])
        }
        if outcome.state.phase == .ended, let key {
            reuseCaches.forget(key)
            chains.forget(matchId)
        }
        guard outcome.disposition == .accepted else {
            return .processed(disposition: outcome.disposition, events: 0)
        }
        // Produce first, then store: a crash in between re-processes from the old state and re-produces the
        // same eventIds/seqs (consumers dedupe by eventId); the reverse order could lose events.
        try await publisher.publish(outcome.events)
        let keyEventAt = outcome.events.filter { $0.keyEvent?.priority == 10 }.map(\.emittedAt).max()
        try await store.save(outcome.state, keyEventAt: keyEventAt)
        for event in outcome.events {
            metrics.event(kind: event.keyEvent?.kind.rawValue ?? "display", priority: event.keyEvent?.priority ?? 5)
        }
        return .processed(disposition: .accepted, events: outcome.events.count)
    }

    /// Parks an unusable message (dead letter, when configured), logs and counts it: it is committed, skipped.
    private func reject(kind: String, error: String, key: String?, source: KafkaMessage?) async throws -> Result {
        if let deadLetters, let source {
            try await deadLetters.publish(source, kind: kind, error: error)
        }
        logger.warning("skipping unreadable snapshot: \(error)", ["event": "bad_message", "kind": kind, "key": key ?? ""])
        metrics.badMessage(kind)
        return .skipped(reason: kind)
    }
}
