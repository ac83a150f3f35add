import Contracts
import Foundation
import Postgres
import Runtime

/// The one store of `broadcast_channels` (migration 9): every read and transition of a channel row. The poller's
/// channel manager creates, activates, fails and deletes; la-coordinator and the api read the active channel of
/// a match and mark one invalid when APNs no longer knows it. Writes are compare-and-set on the state (and the
/// generation), so a stale caller changes nothing.
public struct BroadcastChannelStore: Sendable {
    public let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    private static let columns = """
        match_id, apns_env, channel_id, storage_policy::int AS storage_policy, state, generation, failure_reason, updated_at, match_ended_at
        """

    // MARK: - Creating (the channel manager)

    /// The (match, environment) pairs that need a create now: a match live, or starting within `leadTime` (and not
    /// more than `staleAfter` ago), not over, in each of `environments`, with no row, an INVALID row, or a FAILED
    /// row last refused before `failedRetryBefore`. Live and soonest first, at most `limit`.
    public func dueForCreate(now: Date, leadTime: Duration, staleAfter: Duration, environments: [APNsEnvironment],
                             failedRetryBefore: Date, limit: Int) async throws -> [(matchId: String, environment: APNsEnvironment)] {
        let rows = try await database.query(
            """
            SELECT m.match_id, e.env
            FROM matches m CROSS JOIN unnest($5::text[]) AS e(env)
            LEFT JOIN broadcast_channels c ON c.match_id = m.match_id AND c.apns_env = e.env
            WHERE (m.is_live OR (m.starts_at <= $1 + make_interval(secs => $2) AND m.starts_at >= $1 - make_interval(secs => $3)))
              AND coalesce(m.card ->> 'phase', '') <> \(MatchPhase.ended.sqlLiteral)
              AND (c.match_id IS NULL OR c.state = \(State.invalid) OR (c.state = \(State.failed) AND c.updated_at <= $4))
            ORDER BY m.is_live DESC, m.starts_at NULLS FIRST, m.match_id, e.env
            LIMIT $6
            """, [now, leadTime.seconds, staleAfter.seconds, failedRetryBefore, PostgresTextArray.literal(environments.lazy.map(\.rawValue)),
                  limit])
        return try rows.map { row in
            (try row.decode("match_id", as: String.self), APNsEnvironment(rawValue: try row.decode("env", as: String.self)) ?? .production)
        }
    }

    /// Starts a create: no row → CREATING generation 1; an INVALID or FAILED row → CREATING with the next
    /// generation (its old id forgotten). Returns the generation, or nil when the row is in another state.
    public func beginCreate(matchId: String, environment: APNsEnvironment, storagePolicy: Int, now: Date) async throws -> Int? {
        try await database.query(
            """
            INSERT INTO broadcast_channels (match_id, apns_env, storage_policy, state, generation, created_at, updated_at)
            VALUES ($1, $2, $3, \(State.creating), 1, $4, $4)
            ON CONFLICT (match_id, apns_env) DO UPDATE SET
                state = \(State.creating), channel_id = NULL, storage_policy = EXCLUDED.storage_policy,
                generation = broadcast_channels.generation + 1, updated_at = EXCLUDED.updated_at, activated_at = NULL
            WHERE broadcast_channels.state IN (\(State.invalid), \(State.failed))
            RETURNING generation
            """, [matchId, environment.rawValue, Int16(storagePolicy), now]).first?.decode("generation", as: Int.self)
    }

    /// CREATING `generation` → ACTIVE with `channelId`. False when the row moved on.
    public func activate(matchId: String, environment: APNsEnvironment, generation: Int, channelId: String, now: Date) async throws -> Bool {
        try await database.execute(
            """
            UPDATE broadcast_channels SET state = \(State.active), channel_id = $4, failure_reason = NULL, activated_at = $5, updated_at = $5
            WHERE match_id = $1 AND apns_env = $2 AND generation = $3 AND state = \(State.creating)
            """, [matchId, environment.rawValue, generation, channelId, now]) == 1
    }

    /// CREATING `generation` → FAILED with APNs's `reason`. False when the row moved on.
    public func fail(matchId: String, environment: APNsEnvironment, generation: Int, reason: String, now: Date) async throws -> Bool {
        try await database.execute(
            """
            UPDATE broadcast_channels SET state = \(State.failed), failure_reason = $4, updated_at = $5
            WHERE match_id = $1 AND apns_env = $2 AND generation = $3 AND state = \(State.creating)
            """, [matchId, environment.rawValue, generation, reason, now]) == 1
    }

    /// CREATING rows whose create was sent before `before` and never answered (a timeout): found again by listing.
    public func unansweredCreates(before: Date) async throws -> [BroadcastChannel] {
        try await channels(where: "state = \(State.creating) AND updated_at < $1", [before])
    }

    /// The `failure_reason` of a row whose create APNs left unanswered (INVALID, created again at once).
    public static let createUnansweredReason = "create unanswered"

    /// An unanswered create found in APNs's list, or abandoned (`channelId` nil: the row goes to INVALID, to be
    /// created again). False when the row moved on.
    public func resolveUnanswered(matchId: String, environment: APNsEnvironment, generation: Int, channelId: String?, now: Date)
        async throws -> Bool
    {
        if let channelId { return try await activate(matchId: matchId, environment: environment, generation: generation, channelId: channelId, now: now) }
        return try await database.execute(
            """
            UPDATE broadcast_channels SET state = \(State.invalid), failure_reason = '\(Self.createUnansweredReason)', updated_at = $4
            WHERE match_id = $1 AND apns_env = $2 AND generation = $3 AND state = \(State.creating)
            """, [matchId, environment.rawValue, generation, now]) == 1
    }

    // MARK: - Invalid channels (la-coordinator, apns-sender's answers, reconciliation)

    /// ACTIVE `channelId` → INVALID with `reason` (APNs no longer knows it). Returns the rows changed (0 for an
    /// id that is not active any more: a stale report).
    @discardableResult
    public func markInvalid(channelId: String, reason: String, now: Date) async throws -> Int {
        try await database.execute(
            """
            UPDATE broadcast_channels SET state = \(State.invalid), failure_reason = $2, updated_at = $3
            WHERE channel_id = $1 AND state = \(State.active)
            """,
            [channelId, reason, now])
    }

    // MARK: - Deleting (the channel manager)

    /// Notes `now` as the end of every match with an open channel that is over: its card says ended, or it never
    /// went live within `staleAfter` of its start, or its row is gone. Returns the rows changed.
    @discardableResult
    public func noteEndedMatches(now: Date, staleAfter: Duration) async throws -> Int {
        try await database.execute(
            """
            UPDATE broadcast_channels c SET match_ended_at = $1
            WHERE c.match_ended_at IS NULL AND c.state <> \(State.deleted)
              AND NOT EXISTS (
                  SELECT 1 FROM matches m WHERE m.match_id = c.match_id
                    AND coalesce(m.card ->> 'phase', '') <> \(MatchPhase.ended.sqlLiteral)
                    AND (m.is_live OR m.starts_at IS NULL OR m.starts_at >= $1 - make_interval(secs => $2)))
            """, [now, staleAfter.seconds])
    }

    /// Rows of matches over since `endedBefore` or earlier that still need a delete (any state but DELETED), least
    /// recently tried first (a delete APNs keeps refusing does not hold the others up), at most `limit`.
    public func dueForDelete(endedBefore: Date, limit: Int) async throws -> [BroadcastChannel] {
        try await channels(where: "state <> \(State.deleted) AND match_ended_at <= $1 ORDER BY updated_at LIMIT $2", [endedBefore, limit])
    }

    /// → DELETING (its id kept until APNs confirms; only rows with an id). False when the row is DELETED already.
    public func markDeleting(matchId: String, environment: APNsEnvironment, now: Date) async throws -> Bool {
        try await database.execute(
            """
            UPDATE broadcast_channels SET state = \(State.deleting), updated_at = $3
            WHERE match_id = $1 AND apns_env = $2 AND state <> \(State.deleted)
            """,
            [matchId, environment.rawValue, now]) == 1
    }

    /// → DELETED (APNs answered 204, or no longer knew the channel, or it never had an id).
    public func markDeleted(matchId: String, environment: APNsEnvironment, now: Date) async throws {
        try await database.execute(
            "UPDATE broadcast_channels SET state = \(State.deleted), updated_at = $3 WHERE match_id = $1 AND apns_env = $2",
            [matchId, environment.rawValue, now])
    }

    // MARK: - Reads

    /// The match's ACTIVE channel in `environment`, if any.
    public func activeChannel(matchId: String, environment: APNsEnvironment) async throws -> String? {
        try await database.query(
            "SELECT channel_id FROM broadcast_channels WHERE match_id = $1 AND apns_env = $2 AND state = \(State.active)",
            [matchId, environment.rawValue], prepared: true).first?.decode("channel_id", as: String?.self) ?? nil
    }

    /// The match's ACTIVE channel in the environment of a channel-capable device (`devices.channel_capable`), or nil
    /// (the device starts on a token).
    public func channelForDevice(matchId: String, userId: String, deviceId: String) async throws -> String? {
        try await database.query(
            """
            SELECT bc.channel_id FROM devices d
            JOIN broadcast_channels bc ON bc.match_id = $1 AND bc.apns_env = d.apns_env AND bc.state = \(State.active)
            WHERE d.user_id = $2 AND d.device_id = $3 AND d.channel_capable
            """, [matchId, userId, deviceId], prepared: true).first?.decode("channel_id", as: String?.self) ?? nil
    }

    /// The match's rows (both environments).
    public func channels(matchId: String) async throws -> [BroadcastChannel] {
        try await channels(where: "match_id = $1 ORDER BY apns_env", [matchId])
    }

    /// The ids the table still holds in `environment` (every state but DELETED): anything else APNs lists is an orphan.
    public func knownChannelIds(environment: APNsEnvironment) async throws -> Set<String> {
        Set(try await database.query(
            "SELECT channel_id FROM broadcast_channels WHERE apns_env = $1 AND state <> \(State.deleted) AND channel_id IS NOT NULL",
            [environment.rawValue]).map { try $0.decode("channel_id", as: String.self) })
    }

    /// The ACTIVE rows of `environment`.
    public func activeChannels(environment: APNsEnvironment) async throws -> [BroadcastChannel] {
        try await channels(where: "apns_env = $1 AND state = \(State.active)", [environment.rawValue])
    }

    /// Row counts by environment and state (the `broadcast_channels` gauge).
    public func countsByEnvironmentAndState() async throws -> [APNsEnvironment: [BroadcastChannelState: Int]] {
        var counts: [APNsEnvironment: [BroadcastChannelState: Int]] = [:]
        for row in try await database.query("SELECT apns_env, state, count(*)::int AS n FROM broadcast_channels GROUP BY 1, 2") {
            guard let environment = APNsEnvironment(rawValue: try row.decode("apns_env")),
                  let state = BroadcastChannelState(rawValue: try row.decode("state")) else { continue }
            counts[environment, default: [:]][state] = try row.decode("n", as: Int.self)
        }
        return counts
    }

    private func channels(where condition: String, _ parameters: [PostgresValue?]) async throws -> [BroadcastChannel] {
        try await database.query("SELECT \(Self.columns) FROM broadcast_channels WHERE \(condition)", parameters).map { row in
            BroadcastChannel(
                matchId: try row.decode("match_id"), environment: APNsEnvironment(rawValue: try row.decode("apns_env")) ?? .production,
                channelId: try row.decode("channel_id", as: String?.self), storagePolicy: try row.decode("storage_policy", as: Int.self),
                state: BroadcastChannelState(rawValue: try row.decode("state")) ?? .invalid, generation: try row.decode("generation", as: Int.self),
                failureReason: try row.decode("failure_reason", as: String?.self), updatedAt: try row.decode("updated_at", as: Date.self),
                matchEndedAt: try row.decode("match_ended_at", as: Date?.self))
        }
    }
}

/// The channel states the store's statements name, as SQL literals spelt from `BroadcastChannelState`.
private enum State {
    static let creating = BroadcastChannelState.creating.sqlLiteral
    static let active = BroadcastChannelState.active.sqlLiteral
    static let invalid = BroadcastChannelState.invalid.sqlLiteral
    static let failed = BroadcastChannelState.failed.sqlLiteral
    static let deleting = BroadcastChannelState.deleting.sqlLiteral
    static let deleted = BroadcastChannelState.deleted.sqlLiteral
}
