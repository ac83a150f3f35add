import Contracts
import PushComposition
import Foundation
import Kafka
import LiveActivities
import Postgres
import Runtime

/// Every `interval`: for each match in play (`matches.is_live` and not `close_of_play`), each
/// follower device with a push-to-start token and no pending/active `live_activities` row gets a
/// PENDING row and a liveactivity-start `PushJob` on `push.jobs`. The same pass is the startup
/// recovery (it only looks at the tables), the start of a new day's activities (rows ended `day_end`
/// at stumps start again as soon as play resumes, as fresh starts), and the self-healing of rows
/// ended `token_invalid`: those are re-started at most `maxStartAttempts` times per device and day,
/// the n-th re-start waiting `retryBackoff · 2^(n-1)` after the row's `updated_at` (clock injected).
/// It then rolls over activities about to reach iOS's 8-hour limit (`ActivityRollover`).
///
/// `start_attempts` counts push-to-starts sent for the row (1 after the first); `day_start_attempt`
/// is its value at the row's latest fresh start, and re-starts count from it. Rows change and jobs
/// are produced in one transaction per chunk: the transaction commits only after every job of the
/// chunk is acknowledged, so a failed produce leaves the rows as they were for the next pass
/// (at-least-once; the jobId is deterministic, "start:<match>:<user>:<device>:<attempt>", distinct for
/// every start of the row because `start_attempts` only grows).
struct MatchOrchestrator: Sendable {
    struct Settings: Sendable {
        /// `ORCHESTRATOR_INTERVAL_MS`.
        var interval: Duration = .seconds(30)
        /// `ORCHESTRATOR_MAX_START_ATTEMPTS`: re-starts after token_invalid per device and day of play.
        var maxStartAttempts = 3
        /// `ORCHESTRATOR_ROLLOVER_AFTER_MS`: an activity ACTIVE this long is ended and started again
        /// (iOS ends one after 8 hours; a long ODI or a rain-delayed day lasts longer).
        var rolloverAfter: Duration = .seconds(7 * 3600 + 30 * 60)
        /// `ORCHESTRATOR_RETRY_BACKOFF_MS`: wait before the first re-start (doubles each time).
        var retryBackoff: Duration = .seconds(60)
        /// `PUSH_SHARDS`: shard = stable hash(token) % shards, key "matchId:shard".
        var shards = PushSharding.defaultShards
        /// Expirations of the start and rollover pushes (`PushPolicy`: `PUSH_START_TTL_MS`, `END_PUSH_EXPIRATION_SECONDS`).
        var pushes = PushPolicy()
        /// `ORCHESTRATOR_CHANNEL_WAIT_MS`: how long a channel-capable device waits for its match's broadcast channel
        /// while it is being made (created, or made again after it was lost) before it starts on tokens.
        var channelWait: Duration = .seconds(120)
        /// Candidates handled per transaction.
        var chunkSize = 200
        /// Where the start jobs go (tests use their own topic).
        var jobsTopic = PushJob.topic.name
    }

    /// What one pass did.
    struct Report: Sendable, Equatable {
        var started = 0
        var restarted = 0
        /// Day-end rows started for the new day of play.
        var newDay = 0
        var waiting = 0
        var exhausted = 0
        /// Activities ended and started again before iOS's 8-hour limit.
        var rolledOver = 0
    }

    /// Why a candidate row is started again: ended token_invalid (counts against the day's budget, waits its
    /// backoff) or day_end (a fresh start for the new day).
    typealias Restart = LiveActivityEndReason

    let database: PostgresClient
    let producer: KafkaProducer
    let settings: Settings
    /// Composes the start pushes (and the rollover's ends).
    var composer: DevicePushComposer { DevicePushComposer(policy: settings.pushes) }
    let clock: any WallClock
    let metrics: ActivityManagementMetrics
    let logger: Logger

    struct Candidate: Sendable {
        var matchId: String
        var userId: String
        var deviceId: String
        var token: String
        var env: APNsEnvironment
        var card: MatchCard
        var state: UnifiedDisplayState?
        /// `active_matches.seq` of `state` (0 without one).
        var stateSeq: Int64 = 0
        /// nil: no row yet; else the ended row's reason, attempts, attempts at its latest fresh start and last change.
        var previous: (reason: Restart, attempts: Int, dayStart: Int, updatedAt: Date)?
        /// The broadcast channel the activity starts on (a channel-capable device of a match with a channel).
        var channelId: String? = nil
    }

    /// One pass over every live match. Candidates are streamed (a cursor, `chunkSize` rows per fetch) and
    /// started chunk by chunk as they arrive, so memory stays flat however many followers a match has.
    func runOnce() async throws -> Report {
        let now = clock.now()
        var report = Report()
        var chunk: [Candidate] = []
        func flush() async throws {
            guard !chunk.isEmpty else { return }
            let counts = try await startChunk(chunk, now: now)
            report.started += counts.started
            report.restarted += counts.restarted
            report.newDay += counts.newDay
            chunk.removeAll(keepingCapacity: true)
        }
        try await forEachCandidate(now: now) { candidate in
            if let previous = candidate.previous, previous.reason == .tokenInvalid {
                let restarts = max(0, previous.attempts - previous.dayStart)
                guard restarts < settings.maxStartAttempts else { report.exhausted += 1; return }
                let wait = Backoff(initial: settings.retryBackoff, maximum: .seconds(365 * 86_400)).delay(afterFailures: restarts + 1)
                // 1 ms slack: PostgreSQL keeps microseconds, so a stored updated_at may round up past `now`.
                guard now.addingTimeInterval(0.001) >= previous.updatedAt.addingTimeInterval(wait.seconds) else {
                    report.waiting += 1
                    return
                }
            }
            chunk.append(candidate)
            if chunk.count >= settings.chunkSize { try await flush() }
        }
        try await flush()
        report.rolledOver = try await ActivityRollover(orchestrator: self).runOnce(now: now)
        if report != Report() {
            logger.info("orchestrator pass", ["started": String(report.started), "restarted": String(report.restarted),
                                              "new_day": String(report.newDay), "waiting": String(report.waiting),
                                              "exhausted": String(report.exhausted), "rolled_over": String(report.rolledOver)])
        }
        return report
    }

    /// Streams the follower devices of live matches that need a push-to-start (or may get a re-start) to `body`
    /// (read by `LiveActivityStore`; each match's card and state decoded once per pass).
    func forEachCandidate(now: Date, _ body: (Candidate) async throws -> Void) async throws {
        var matches: [String: (card: MatchCard, state: UnifiedDisplayState?)] = [:]
        try await LiveActivityStore(database: database).forEachStartCandidate(now: now, channelWait: settings.channelWait, batchSize: settings.chunkSize) { row in
            let match = matches[row.device.matchId] ?? Self.decodeMatch(row.device)
            matches[row.device.matchId] = match
            try await body(Candidate(
                row.device, card: match.card, state: match.state,
                previous: row.ended.map { ($0.reason, $0.attempts, $0.dayStartAttempt, $0.updatedAt) }))
        }
    }

    /// The stored card (a placeholder when missing or unreadable) and display state of a candidate's match.
    static func decodeMatch(_ device: FollowerDevice) -> (card: MatchCard, state: UnifiedDisplayState?) {
        ((try? device.card?.decode(MatchCard.self)) ?? FallbackDisplayState.placeholderCard(matchId: device.matchId),
         try? device.displayState?.decode(UnifiedDisplayState.self))
    }

    /// Produces `messages` and fails on the first that was not acknowledged.
    func produce(_ messages: [KafkaOutgoingMessage]) async throws {
        for result in await producer.sendAll(messages) {
            if case .failure(let error) = result { throw error }
        }
    }

    /// The `push.jobs` message of `job` (keyed by match and the first target's shard).
    func message(_ job: PushJob) throws -> KafkaOutgoingMessage {
        KafkaOutgoingMessage(topic: settings.jobsTopic, key: Array(job.shardKey(shards: settings.shards).utf8), value: try MessageCodec.encode(job))
    }

    /// Inserts/updates the rows of `chunk` and produces their jobs in one transaction.
    private func startChunk(_ chunk: [Candidate], now: Date) async throws -> (started: Int, restarted: Int, newDay: Int) {
        try await database.withTransaction { connection in
            var jobs: [(PushJob, restart: Restart?)] = []
            for candidate in chunk {
                let attempt: Int
                let changed: Bool
                if let previous = candidate.previous {
                    attempt = previous.attempts + 1
                    changed = try await LiveActivityStore.restart(
                        on: connection, matchId: candidate.matchId, userId: candidate.userId, deviceId: candidate.deviceId,
                        endedAs: previous.reason, attempts: previous.attempts, now: now)
                } else {
                    attempt = 1
                    changed = try await LiveActivityStore.insertPending(
                        on: connection, matchId: candidate.matchId, userId: candidate.userId, deviceId: candidate.deviceId, now: now)
                }
                guard changed else { continue }
                do {
                    jobs.append((try job(for: candidate, attempt: attempt, now: now), candidate.previous?.reason))
                } catch {
                    logger.error("push-to-start payload rejected", ["match_id": candidate.matchId, "error": "\(error)"])
                    throw error
                }
            }
            try await produce(try jobs.map { job, _ in try message(job) })
            let restarted = jobs.count { $0.restart == .tokenInvalid }
            let newDay = jobs.count { $0.restart == .dayEnd }
            metrics.startJobs.increment(by: jobs.count - restarted - newDay)
            metrics.restartJobs.increment(by: restarted)
            metrics.newDayJobs.increment(by: newDay)
            return (jobs.count - restarted - newDay, restarted, newDay)
        }
    }

    /// The push-to-start job of `candidate`'s `attempt`-th start (composed by `DevicePushComposer`).
    func job(for candidate: Candidate, attempt: Int, now: Date) throws -> PushJob {
        let payload = try composer.startPayload(state: candidate.displayState(now: now), now: now, channelId: candidate.channelId)
        return composer.start(candidate.device, attempt: attempt, payload: payload, stateSeq: candidate.state == nil ? 0 : candidate.stateSeq,
                              now: now)
    }
}
