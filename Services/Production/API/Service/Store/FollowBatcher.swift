import Contracts
import PushComposition
import Foundation
import Runtime
import Matches

/// Follows by group commit: concurrent follow requests queue and await, and each batch (up to
/// `limits.maxBatch` distinct (user, match) pairs) is ONE statement (`FollowStore.follow(_:policy:now:)`)
/// and ONE produce of all its start jobs whose acknowledgements are awaited together.
///
/// Every rule of a single follow holds per pair (see `FollowBatchStatement`). Two requests for the
/// same (user, match) in one batch (two devices racing) are one pair and get the same outcome.
/// A failing statement fails only the callers of its batch, and writes nothing. A start job the
/// broker does not acknowledge fails only the callers of that pair (`FollowError.startsNotQueued`,
/// answered 503), after its rows are marked unsent so the retried follow sends again.
///
/// The statement holds a batch slot; the wait for acknowledgements does not, so the next batch's
/// statement runs meanwhile.
final class FollowBatcher: Sendable {
    /// What one follow did.
    enum Outcome: Sendable {
        /// Followed; `startedDevices` got a start job now (acknowledged by the broker).
        case followed(FollowFlow.FollowOutcome, startedDevices: [String])
        /// No such match: nothing was written.
        case unknownMatch
    }

    private let queue: GroupCommitQueue<FollowFlow.FollowKey, Outcome>

    init(
        store: FollowFlow, publisher: PushJobPublisher, factory: PushJobFactory, payloads: StartPayloadCache,
        clock: any WallClock, logger: Logger, metrics: APIMetrics, limits: GroupCommitQueue<FollowFlow.FollowKey, Outcome>.Limits
    ) {
        let run = BatchRun(store: store, publisher: publisher, factory: factory, payloads: payloads, clock: clock, logger: logger, metrics: metrics)
        queue = GroupCommitQueue(limits: limits) { keys, release in await run.run(keys, release: release) }
    }

    /// Follows `matchId` for `userId` with the next batch.
    /// - Throws: `FollowError.startsNotQueued`, or the batch's `PostgresError`.
    func follow(userId: String, matchId: String) async throws -> Outcome {
        try await queue.submit(FollowFlow.FollowKey(userId: userId, matchId: matchId))
    }
}

/// Why a follow failed after its batch ran.
enum FollowError: Error, CustomStringConvertible {
    /// The follow and its PENDING rows are written, but a start job of `matchId` is not on the topic
    /// (rows marked unsent: a retried follow sends again).
    case startsNotQueued(matchId: String, reason: String)

    var description: String {
        switch self {
        case .startsNotQueued(let matchId, let reason): "start jobs of \(matchId) not queued: \(reason)"
        }
    }
}

/// One batch's work: the statement, then the start jobs of every pair produced together.
private struct BatchRun: Sendable {
    let store: FollowFlow
    let publisher: PushJobPublisher
    let factory: PushJobFactory
    let payloads: StartPayloadCache
    let clock: any WallClock
    let logger: Logger
    let metrics: APIMetrics

    func run(_ keys: [FollowFlow.FollowKey], release: @Sendable () -> Void) async -> [Result<FollowBatcher.Outcome, any Error>] {
        metrics.followBatchSize.observe(Double(keys.count))
        let now = clock.now()
        let outcomes: [FollowFlow.FollowOutcome?]
        do {
            outcomes = try await store.follow(keys, now: now)
        } catch {
            release()
            logger.error("follow batch failed", ["follows": String(keys.count), "error": String(describing: error)])
            return keys.map { _ in .failure(error) }
        }
        release()

        var jobs: [PushJob] = []
        var owners: [Int] = []
        var failures: [Int: String] = [:]
        for (index, outcome) in outcomes.enumerated() {
            guard let outcome, !outcome.starts.isEmpty else { continue }
            let matchId = keys[index].matchId
            let state = Self.state(outcome.match, matchId: matchId, now: now)
            // A detector state is the same text whenever it is read, so its body is a cached template; a fallback
            // built from the card carries `now` as its updatedAt, so it is encoded for this request.
            // One body per channel (token starts: none): a capable device starts subscribed to the match's channel.
            var byChannel: [String?: [PushJobFactory.Target]] = [:]
            for start in outcome.starts { byChannel[start.channelId, default: []].append(start) }
            var made: [PushJob] = []
            for (channelId, starts) in byChannel.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
                let payload = outcome.match.displayState == nil
                    ? factory.startPayload(matchId: matchId, state: state, now: now, channelId: channelId)
                    : payloads.payload(matchId: matchId, stateText: outcome.stateText, channelId: channelId, now: now) { at in
                        factory.startPayload(matchId: matchId, state: state, now: at, channelId: channelId)
                    }
                guard let payload else {
                    made = []
                    break
                }
                made += factory.startJobs(matchId: matchId, payload: payload, seq: outcome.match.seq, targets: starts, now: now)
            }
            guard made.count == outcome.starts.count else {
                failures[index] = "start payload could not be encoded"
                continue
            }
            jobs += made
            owners += repeatElement(index, count: made.count)
        }
        var acknowledged = 0
        for (position, failure) in (await publisher.publishEach(jobs)).enumerated() {
            guard let failure else {
                acknowledged += 1
                continue
            }
            failures[owners[position]] = String(describing: failure)
        }
        metrics.jobsProduced.increment(by: acknowledged)
        if !failures.isEmpty {
            await markUnsent(failures, keys: keys, outcomes: outcomes)
        }
        return outcomes.enumerated().map { index, outcome in
            guard let outcome else { return .success(.unknownMatch) }
            if let reason = failures[index] { return .failure(FollowError.startsNotQueued(matchId: keys[index].matchId, reason: reason)) }
            return .success(.followed(outcome, startedDevices: outcome.starts.map(\.deviceId)))
        }
    }

    /// The state a start shows: the cached display state, else one built from the card, else a bare one.
    static func state(_ match: MatchStore.MatchInfo, matchId: String, now: Date) -> UnifiedDisplayState {
        let timestamp = Int64(now.timeIntervalSince1970)
        return FallbackDisplayState.resolve(state: match.displayState, card: match.card, matchId: matchId, updatedAt: timestamp)
    }

    /// Logs and counts the failed pairs and marks all their rows unsent.
    private func markUnsent(_ failures: [Int: String], keys: [FollowFlow.FollowKey], outcomes: [FollowFlow.FollowOutcome?]) async {
        var targets: [(matchId: String, target: PushJobFactory.Target)] = []
        for (index, reason) in failures {
            metrics.jobFailures.increment()
            logger.error("start jobs not queued", ["match_id": keys[index].matchId, "error": reason])
            for target in outcomes[index]?.starts ?? [] { targets.append((keys[index].matchId, target)) }
        }
        await store.markStartsUnsent(targets)
    }
}
