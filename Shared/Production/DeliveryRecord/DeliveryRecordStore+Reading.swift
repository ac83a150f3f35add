import Contracts
import Foundation
import Postgres

/// The record as support's view and the match report read it: rows with their slots resolved against their jobs, a
/// match's totals, the record's progress and gaps.
extension DeliveryRecordStore {
    // MARK: - Reading (support, the match report)

    /// One row of the record.
    public struct Row: Sendable, Equatable, Codable {
        public var matchId: String
        public var userId: String
        public var deviceId: String
        public var channelId: String?
        public var sent: Int64
        public var accepted: Int64
        public var refused: Int64
        public var retried: Int64
        public var superseded: Int64
        public var dead: Int64
        public var lastStart: DeliveryEntry?
        public var lastUpdate: DeliveryEntry?
        public var lastKeyEvent: DeliveryEntry?
        public var lastEnd: DeliveryEntry?
        /// The newest refused or dead delivery.
        public var lastFailure: DeliveryEntry?
        public var recent: [DeliveryEntry]
        public var firstAt: Date
        public var lastAt: Date

        public init(matchId: String, userId: String, deviceId: String, channelId: String? = nil, sent: Int64, accepted: Int64, refused: Int64, retried: Int64, superseded: Int64, dead: Int64, lastStart: DeliveryEntry? = nil, lastUpdate: DeliveryEntry? = nil, lastKeyEvent: DeliveryEntry? = nil, lastEnd: DeliveryEntry? = nil, lastFailure: DeliveryEntry? = nil, recent: [DeliveryEntry], firstAt: Date, lastAt: Date) {
            self.matchId = matchId
            self.userId = userId
            self.deviceId = deviceId
            self.channelId = channelId
            self.sent = sent
            self.accepted = accepted
            self.refused = refused
            self.retried = retried
            self.superseded = superseded
            self.dead = dead
            self.lastStart = lastStart
            self.lastUpdate = lastUpdate
            self.lastKeyEvent = lastKeyEvent
            self.lastEnd = lastEnd
            self.lastFailure = lastFailure
            self.recent = recent
            self.firstAt = firstAt
            self.lastAt = lastAt
        }
    }

    static let rowColumns = """
        match_id, user_id, device_id, channel_id, sent, accepted, refused, retried, superseded, dead, last_start, last_update, last_key_event,
        last_end, last_failure, recent, first_at, last_at
        """

    /// Rows with their slots resolved against their jobs (one query for the jobs of all of them).
    func resolve(_ rows: PostgresRows) async throws -> [Row] {
        var raw: [(row: Row, slots: [String: [DeliverySlot]])] = []
        var keys: [String: Set<Int64>] = [:]
        for row in rows {
            var slots: [String: [DeliverySlot]] = [:]
            for column in ["last_start", "last_update", "last_key_event", "last_end", "last_failure", "recent"] {
                let bytes = try row.decode(column, as: [UInt8]?.self) ?? []
                slots[column] = DeliverySlot.readAll(bytes)
            }
            let record = Row(
                matchId: try row.decode("match_id"), userId: try row.decode("user_id"), deviceId: try row.decode("device_id"),
                channelId: try row.decode("channel_id"), sent: try row.decode("sent"), accepted: try row.decode("accepted"),
                refused: try row.decode("refused"), retried: try row.decode("retried"), superseded: try row.decode("superseded"),
                dead: try row.decode("dead"), recent: [], firstAt: try row.decode("first_at"), lastAt: try row.decode("last_at"))
            for slot in slots.values.joined() { keys[record.matchId, default: []].insert(slot.jobKey) }
            raw.append((record, slots))
        }
        var jobs: [String: [Int64: DeliveryJob]] = [:]
        for (match, matchKeys) in keys {
            let found = try await database.query(
                """
                SELECT job_key, job_id, kind, priority, seq, content_ts, created_at, finished_at, known_at, trim_step
                FROM delivery_jobs WHERE match_id = $1 AND job_key = ANY($2::bigint[])
                """, [match, PostgresTextArray.literal(matchKeys.map(String.init))], prepared: true)
            for job in found {
                jobs[match, default: [:]][try job.decode("job_key", as: Int64.self)] = DeliveryJob(
                    matchId: match, jobId: try job.decode("job_id"), kind: DeliveryKind(rawValue: try job.decode("kind", as: String.self)) ?? .update,
                    priority: try job.decode("priority"), seq: try job.decode("seq"), contentTimestamp: try job.decode("content_ts", as: Int64?.self),
                    createdAt: try job.decode("created_at"), finishedAt: try job.decode("finished_at"), knownAt: try job.decode("known_at", as: Int64?.self),
                    trimStep: try job.decode("trim_step", as: Int?.self))
            }
        }
        return raw.map { item in
            var row = item.row
            func entry(_ column: String) -> DeliveryEntry? { item.slots[column]?.first.map { $0.entry(jobs[row.matchId]?[$0.jobKey]) } }
            row.lastStart = entry("last_start")
            row.lastUpdate = entry("last_update")
            row.lastKeyEvent = entry("last_key_event")
            row.lastEnd = entry("last_end")
            row.lastFailure = entry("last_failure")
            row.recent = (item.slots["recent"] ?? []).map { $0.entry(jobs[row.matchId]?[$0.jobKey]) }.sorted { $0.finishedAt > $1.finishedAt }
            return row
        }
    }

    /// The row of one activity, or nil.
    public func row(matchId: String, userId: String, deviceId: String) async throws -> Row? {
        try await resolve(database.query("SELECT \(Self.rowColumns) FROM push_deliveries WHERE match_id = $1 AND user_id = $2 AND device_id = $3",
                                         [matchId, userId, deviceId], prepared: true)).first
    }

    /// The rows of a user's devices (of one device when `deviceId` is given), newest first, at most `limit`.
    public func rows(userId: String, deviceId: String? = nil, limit: Int = 50) async throws -> [Row] {
        try await resolve(database.query(
            """
            SELECT \(Self.rowColumns) FROM push_deliveries WHERE user_id = $1 AND ($2::text IS NULL OR device_id = $2)
            ORDER BY last_at DESC LIMIT $3
            """, [userId, deviceId, limit], prepared: true))
    }

    /// The broadcast channel rows of a match.
    public func channelRows(matchId: String) async throws -> [Row] {
        try await resolve(database.query("SELECT \(Self.rowColumns) FROM push_deliveries WHERE match_id = $1 AND user_id = '' ORDER BY device_id",
                                         [matchId], prepared: true))
    }

    /// A match's pushes by final answer, summed over its rows (a broadcast counts once), and the freshness of each
    /// activity's latest accepted update or key event (p50, p99, seconds).
    public struct MatchTotals: Sendable, Equatable {
        public var accepted: Int64
        public var refused: Int64
        public var dead: Int64
        public var superseded: Int64
        public var retried: Int64
        public var rows: Int64
        public var freshnessP50: Double?
        public var freshnessP99: Double?
    }

    public func matchTotals(matchId: String) async throws -> MatchTotals {
        let rows = try await database.query(
            """
            SELECT coalesce(sum(accepted), 0)::bigint AS accepted, coalesce(sum(refused), 0)::bigint AS refused,
                   coalesce(sum(dead), 0)::bigint AS dead, coalesce(sum(superseded), 0)::bigint AS superseded,
                   coalesce(sum(retried), 0)::bigint AS retried, count(*)::bigint AS rows,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY fresh_ms) / 1000.0 AS p50,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY fresh_ms) / 1000.0 AS p99
            FROM push_deliveries WHERE match_id = $1
            """, [matchId], prepared: true)
        guard let row = rows.first else { return MatchTotals(accepted: 0, refused: 0, dead: 0, superseded: 0, retried: 0, rows: 0) }
        return MatchTotals(accepted: try row.decode("accepted"), refused: try row.decode("refused"), dead: try row.decode("dead"),
                           superseded: try row.decode("superseded"), retried: try row.decode("retried"), rows: try row.decode("rows"),
                           freshnessP50: try row.decode("p50"), freshnessP99: try row.decode("p99"))
    }

    /// How far the record has got: the latest fold and the gaps (newest first, at most 20).
    public struct Progress: Sendable, Equatable, Codable {
        /// When the recorder last wrote (nil: never).
        public var lastFoldAt: Date?
        public var gaps: [GapRow]

        public init(lastFoldAt: Date? = nil, gaps: [GapRow]) {
            self.lastFoldAt = lastFoldAt
            self.gaps = gaps
        }
    }

    /// A gap as stored.
    public struct GapRow: Sendable, Equatable, Codable {
        public var partition: Int
        public var from: Int64
        public var to: Int64
        public var reason: String
        public var detectedAt: Date

        public init(partition: Int, from: Int64, to: Int64, reason: String, detectedAt: Date) {
            self.partition = partition
            self.from = from
            self.to = to
            self.reason = reason
            self.detectedAt = detectedAt
        }
    }

    public func progress(topic: String = Topic.pushOutcomes.name) async throws -> Progress {
        let last = try await database.query("SELECT max(updated_at) AS at FROM delivery_record_offsets WHERE topic = $1", [topic], prepared: true)
        let gaps = try await database.query(
            "SELECT partition, from_offset, to_offset, reason, detected_at FROM delivery_record_gaps WHERE topic = $1 ORDER BY detected_at DESC LIMIT 20",
            [topic], prepared: true)
        return Progress(
            lastFoldAt: try last.first?.decode("at", as: Date?.self) ?? nil,
            gaps: try gaps.map {
                GapRow(partition: try $0.decode("partition"), from: try $0.decode("from_offset"), to: try $0.decode("to_offset"),
                       reason: try $0.decode("reason"), detectedAt: try $0.decode("detected_at"))
            })
    }
}
