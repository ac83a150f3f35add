import Postgres

/// One ACTIVE activity of a match with its update token: a fan-out target.
public struct ActiveActivity: Sendable, Equatable {
    public var updateToken: String
    /// The row's `apns_env`: the environment of the device when it registered the update token.
    public var apnsEnvironment: String
    public var userId: String
    public var deviceId: String
}

extension LiveActivityStore {
    // MARK: - Reads of la-coordinator's fan-out and the admin view

    /// Streams the match's ACTIVE activities holding an update token, `batchSize` rows per fetch.
    ///
    /// Ordered by (user_id, device_id) — the primary key's order within a match, so the server walks the
    /// primary key instead of sorting, and reads no other table (the row carries its token's environment) — which makes the
    /// chunking, and so the job ids, the same every time the same rows are streamed. Every active row is a
    /// target (one per device: multi-device users get the push on each).
    /// - Returns: the rows streamed.
    @discardableResult
    public func forEachActiveActivity(matchId: String, batchSize: Int, _ body: (ActiveActivity) async throws -> Void)
        async throws -> Int
    {
        try await database.stream(
            """
            SELECT la.update_token, la.apns_env, la.user_id, la.device_id
            FROM live_activities la
            WHERE la.match_id = $1 AND la.status = \(Literal.active) AND la.update_token IS NOT NULL
            ORDER BY la.user_id, la.device_id
            """, [matchId], batchSize: batchSize
        ) { row in
            try await body(ActiveActivity(
                updateToken: try row.decode(0, as: String.self), apnsEnvironment: try row.decode(1, as: String.self),
                userId: try row.decode(2, as: String.self), deviceId: try row.decode(3, as: String.self)))
        }
    }

    /// How many rows each status has (statuses without rows are absent).
    public func countsByStatus() async throws -> [LiveActivityStatus: Int] {
        var counts: [LiveActivityStatus: Int] = [:]
        for row in try await database.query("SELECT status, count(*) AS n FROM live_activities GROUP BY status") {
            if let status = LiveActivityStatus(rawValue: try row.decode("status", as: String.self)) {
                counts[status] = try row.decode("n", as: Int.self)
            }
        }
        return counts
    }

    /// Rows of one (status, end reason, delivery mode) of a match.
    public struct MatchActivityCount: Sendable, Equatable {
        public var status: String
        public var endReason: String?
        public var delivery: String
        public var count: Int
    }

    /// The match's rows counted by status, end reason and delivery mode (ordered so, no end reason first): the
    /// operator's report.
    public func counts(matchId: String) async throws -> [MatchActivityCount] {
        try await database.query(
            """
            SELECT status, end_reason, delivery, count(*) AS n FROM live_activities WHERE match_id = $1
            GROUP BY status, end_reason, delivery ORDER BY status, end_reason NULLS FIRST, delivery
            """, [matchId]
        ).map { row in
            MatchActivityCount(status: try row.decode("status"), endReason: try row.decode("end_reason", as: String?.self),
                               delivery: try row.decode("delivery"), count: try row.decode("n", as: Int.self))
        }
    }
}
