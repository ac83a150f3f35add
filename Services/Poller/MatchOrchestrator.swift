import Contracts
import Foundation
import Kafka
import Postgres
import Runtime

/// Every `interval`: for each live match (`matches.is_live`), each follower device with a
/// push-to-start token and no pending/active `live_activities` row gets a PENDING row and a
/// liveactivity-start `PushJob` on `push.jobs`. The same pass is the startup recovery (it only looks
/// at the tables) and the self-healing of rows ended `token_invalid` on a still-live match: those are
/// re-started at most `maxStartAttempts` times per device and match, the n-th re-start waiting
/// `retryBackoff · 2^(n-1)` after the row's `updated_at` (clock injected).
///
/// `start_attempts` counts push-to-starts sent for the row (1 after the first). Rows change and jobs
/// are produced in one transaction per chunk: the transaction commits only after every job of the
/// chunk is acknowledged, so a failed produce leaves the rows as they were for the next pass
/// (at-least-once; the jobId is deterministic, "start:<match>:<user>:<device>:<attempt>").
struct MatchOrchestrator: Sendable {
    struct Settings: Sendable {
        /// `ORCHESTRATOR_INTERVAL_MS`.
        var interval: Duration = .seconds(30)
        /// `ORCHESTRATOR_MAX_START_ATTEMPTS`: re-starts after token_invalid per device and match.
        var maxStartAttempts = 3
        /// `ORCHESTRATOR_RETRY_BACKOFF_MS`: wait before the first re-start (doubles each time).
        var retryBackoff: Duration = .seconds(60)
        /// `PUSH_SHARDS`: shard = stable hash(token) % shards, key "matchId:shard".
        var shards = PushSharding.defaultShards
        /// `PUSH_START_TTL_MS`: the job's APNs expiration after creation.
        var jobTTL: Duration = .seconds(300)
        /// Candidates handled per transaction.
        var chunkSize = 200
        /// Where the start jobs go (tests use their own topic).
        var jobsTopic = PushJob.topic.name
    }

    /// What one pass did.
    struct Report: Sendable, Equatable {
        var started = 0
        var restarted = 0
        var waiting = 0
        var exhausted = 0
    }

    let database: PostgresClient
    let producer: KafkaProducer
    let settings: Settings
    let clock: any WallClock
    let metrics: PollerMetrics
    let logger: Logger

    struct Candidate: Sendable {
        var matchId: String
        var userId: String
        var deviceId: String
        var token: String
        var env: APNsEnvironment
        var card: MatchCard
        var state: UnifiedDisplayState?
        /// nil: no row yet; else the ended token_invalid row's attempts and last change.
        var previous: (attempts: Int, updatedAt: Date)?
    }

    /// One pass over every live match. Candidates are streamed (a cursor, `chunkSize` rows per fetch) and
    /// started chunk by chunk as they arrive, so memory stays flat however many followers a match has.
    func runOnce() async throws -> Report {
        let now = clock.now()
        var report = Report()
        var chunk: [Candidate] = []
        func flush() async throws {
            guard !chunk.isEmpty else { return }
            let (started, restarted) = try await startChunk(chunk, now: now)
            report.started += started
            report.restarted += restarted
            chunk.removeAll(keepingCapacity: true)
        }
        try await forEachCandidate(now: now) { candidate in
            if let previous = candidate.previous {
                let restarts = max(0, previous.attempts - 1)
                guard restarts < settings.maxStartAttempts else { report.exhausted += 1; return }
                let wait = settings.retryBackoff * (1 << min(restarts, 20))
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
        if report != Report() {
            logger.info("orchestrator pass", ["started": String(report.started), "restarted": String(report.restarted),
                                              "waiting": String(report.waiting), "exhausted": String(report.exhausted)])
        }
        return report
    }

    /// Streams the follower devices of live matches that need a push-to-start (or may get a re-start) to `body`.
    func forEachCandidate(now: Date, _ body: (Candidate) async throws -> Void) async throws {
        var cards: [String: MatchCard] = [:]
        var states: [String: UnifiedDisplayState?] = [:]
        _ = try await database.stream(
            """
            SELECT m.match_id, m.card, am.display_state, d.user_id, d.device_id, d.push_to_start_token, d.apns_env,
                   la.start_attempts, la.updated_at
            FROM matches m
            JOIN match_follows f ON f.match_id = m.match_id AND (f.expires_at IS NULL OR f.expires_at > $1)
            JOIN devices d ON d.user_id = f.user_id AND coalesce(d.push_to_start_token, '') <> ''
            LEFT JOIN live_activities la ON la.match_id = m.match_id AND la.user_id = d.user_id AND la.device_id = d.device_id
            LEFT JOIN active_matches am ON am.match_id = m.match_id
            WHERE m.is_live AND (la.match_id IS NULL OR (la.status = 'ended' AND la.end_reason = 'token_invalid'))
            ORDER BY m.match_id, d.user_id, d.device_id
            """, [now], batchSize: settings.chunkSize
        ) { row in
            let matchId = try row.decode("match_id", as: String.self)
            if cards[matchId] == nil {
                let card = try? row.decode("card", as: PostgresJSON.self).decode(MatchCard.self)
                cards[matchId] = card ?? MatchCard(matchId: matchId, startsAt: 0, status: "", phase: .live, title: "Match \(matchId)",
                                                   subtitle: "", home: .init(name: "", abbr: "", score: "", logoUrl: nil),
                                                   away: .init(name: "", abbr: "", score: "", logoUrl: nil), statusText: "Live")
                states[matchId] = .some(try? row.decode("display_state", as: PostgresJSON?.self)?.decode(UnifiedDisplayState.self))
            }
            let attempts = try row.decode("start_attempts", as: Int?.self)
            let updatedAt = try row.decode("updated_at", as: Date?.self)
            try await body(Candidate(
                matchId: matchId, userId: try row.decode("user_id"), deviceId: try row.decode("device_id"),
                token: try row.decode("push_to_start_token"),
                env: APNsEnvironment(rawValue: try row.decode("apns_env", as: String.self)) ?? .production,
                card: cards[matchId]!, state: states[matchId] ?? nil,
                previous: attempts.map { ($0, updatedAt ?? .distantPast) }))
        }
    }

    /// Inserts/updates the rows of `chunk` and produces their jobs in one transaction.
    private func startChunk(_ chunk: [Candidate], now: Date) async throws -> (started: Int, restarted: Int) {
        try await database.withTransaction { connection in
            var jobs: [(PushJob, restart: Bool)] = []
            for candidate in chunk {
                let attempt: Int
                let changed: Int
                if let previous = candidate.previous {
                    attempt = previous.attempts + 1
                    changed = try await connection.query(
                        """
                        UPDATE live_activities SET status = 'pending', end_reason = NULL, update_token = NULL,
                            start_attempts = start_attempts + 1, updated_at = $5
                        WHERE match_id = $1 AND user_id = $2 AND device_id = $3 AND status = 'ended'
                          AND end_reason = 'token_invalid' AND start_attempts = $4
                        """, [candidate.matchId, candidate.userId, candidate.deviceId, previous.attempts, now]).affectedRows
                } else {
                    attempt = 1
                    changed = try await connection.query(
                        """
                        INSERT INTO live_activities (match_id, user_id, device_id, status, start_attempts, created_at, updated_at)
                        VALUES ($1, $2, $3, 'pending', 1, $4, $4) ON CONFLICT DO NOTHING
                        """, [candidate.matchId, candidate.userId, candidate.deviceId, now]).affectedRows
                }
                guard changed == 1 else { continue }
                do {
                    jobs.append((try job(for: candidate, attempt: attempt, now: now), candidate.previous != nil))
                } catch {
                    logger.error("push-to-start payload rejected", ["match_id": candidate.matchId, "error": "\(error)"])
                    throw error
                }
            }
            let messages = try jobs.map { job, _ in
                KafkaOutgoingMessage(topic: settings.jobsTopic, key: Array(PushJob.key(matchId: job.matchId,
                    shard: PushSharding.shard(token: job.targets[0].token, shards: settings.shards)).utf8), value: try MessageCodec.encode(job))
            }
            for result in await producer.sendAll(messages) {
                if case .failure(let error) = result { throw error }
            }
            let restarted = jobs.filter(\.restart).count
            metrics.startJobs.increment(by: jobs.count - restarted)
            metrics.restartJobs.increment(by: restarted)
            return (jobs.count - restarted, restarted)
        }
    }

    func job(for candidate: Candidate, attempt: Int, now: Date) throws -> PushJob {
        let seconds = Int64(now.timeIntervalSince1970)
        let payload = try StartPayload.json(card: candidate.card, state: candidate.state, timestamp: seconds)
        return PushJob(
            jobId: PushJob.startJobId(matchId: candidate.matchId, userId: candidate.userId, deviceId: candidate.deviceId,
                                      attempt: String(attempt)),
            kind: .liveActivityStart, matchId: candidate.matchId, seq: Int64(attempt), priority: 10,
            expiration: seconds + Int64(settings.jobTTL.seconds), relevanceScore: nil, payload: payload,
            targets: [PushTarget(token: candidate.token, env: candidate.env, userId: candidate.userId, deviceId: candidate.deviceId)],
            createdAt: Int64(now.timeIntervalSince1970 * 1000))
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
