import Contracts
import Foundation
import Postgres

/// Every read and write of the delivery record's tables (`push_deliveries`, `delivery_record_offsets`,
/// `delivery_record_gaps`): la-coordinator's recorder writes folds, the support views and the match report read, the
/// TTL sweep removes old rows (a deleted device's rows go in `DeviceStore.delete`'s statement).
public struct DeliveryRecordStore: Sendable {
    public let database: PostgresClient
    /// Rows per statement of a fold's write (one JSON document each).
    public var rowsPerStatement = 2_000

    public init(database: PostgresClient) {
        self.database = database
    }

    // MARK: - Recording (la-coordinator's recorder)

    /// A range of `push.outcomes` offsets that was never folded.
    public struct Gap: Sendable, Equatable {
        public var partition: Int32
        public var from: Int64
        public var to: Int64
        public var reason: String

        public init(partition: Int32, from: Int64, to: Int64, reason: String) {
            self.partition = partition
            self.from = from
            self.to = to
            self.reason = reason
        }
    }

    /// Runs `body` in one transaction holding the offset rows of `partitions` of `topic` (created at `initial` when
    /// missing) locked, so that two recorders never fold the same outcomes: `body` gets the next offset to fold per
    /// partition and returns what to write — the fold, the next offsets after it, and any gaps.
    public func record(topic: String, partitions: [Int32], initial: [Int32: Int64],
                       _ body: @Sendable ([Int32: Int64]) throws -> (fold: DeliveryFold, next: [Int32: Int64], gaps: [Gap])) async throws
        -> (rows: Int, pushes: Int)
    {
        try await database.withTransaction { connection in
            let ordered = partitions.sorted()
            let initialOffsets = ordered.map { String(initial[$0] ?? 0) }
            try await connection.execute(
                """
                INSERT INTO delivery_record_offsets (topic, partition, next_offset)
                SELECT $1, p, o FROM unnest($2::int[], $3::bigint[]) AS u(p, o) ON CONFLICT DO NOTHING
                """, [topic, PostgresTextArray.literal(ordered.map(String.init)), PostgresTextArray.literal(initialOffsets)], prepared: true)
            let rows = try await connection.query(
                "SELECT partition, next_offset FROM delivery_record_offsets WHERE topic = $1 AND partition = ANY($2::int[]) ORDER BY partition FOR UPDATE",
                [topic, PostgresTextArray.literal(ordered.map(String.init))], prepared: true)
            var stored: [Int32: Int64] = [:]
            for row in rows { stored[Int32(try row.decode("partition", as: Int.self))] = try row.decode("next_offset", as: Int64.self) }
            let (fold, next, gaps) = try body(stored)
            var written = 0
            let subjects = fold.deltas.keys.sorted()  // one order for every writer: no deadlock between two recorders
            var start = subjects.startIndex
            while start < subjects.endIndex {
                let end = min(start + rowsPerStatement, subjects.endIndex)
                written += try await connection.execute(Self.upsert, [PostgresJSON(Self.document(subjects[start..<end], fold))], prepared: true)
                start = end
            }
            var matchLast: [String: Int64] = [:]
            for (subject, delta) in fold.deltas { matchLast[subject.matchId] = max(matchLast[subject.matchId] ?? delta.lastAt, delta.lastAt) }
            if !matchLast.isEmpty {
                let matches = matchLast.sorted { $0.key < $1.key }
                try await connection.execute(
                    """
                    INSERT INTO delivery_record_matches AS m (match_id, last_at)
                    SELECT u.m, to_timestamp(u.t / 1000.0) FROM unnest($1::text[], $2::bigint[]) AS u(m, t)
                    ON CONFLICT (match_id) DO UPDATE SET last_at = greatest(m.last_at, EXCLUDED.last_at)
                    """, [PostgresTextArray.literal(matches.map(\.key)), PostgresTextArray.literal(matches.map { String($0.value) })], prepared: true)
            }
            let advanced = next.filter { entry in stored[entry.key].map { entry.value > $0 } ?? true }.sorted { $0.key < $1.key }
            if !advanced.isEmpty {
                try await connection.execute(
                    """
                    UPDATE delivery_record_offsets o SET next_offset = u.o, updated_at = now()
                    FROM unnest($2::int[], $3::bigint[]) AS u(p, o) WHERE o.topic = $1 AND o.partition = u.p
                    """, [topic, PostgresTextArray.literal(advanced.map { String($0.key) }), PostgresTextArray.literal(advanced.map { String($0.value) })],
                    prepared: true)
            }
            for gap in gaps {
                try await connection.execute(
                    """
                    INSERT INTO delivery_record_gaps (topic, partition, from_offset, to_offset, reason) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT DO NOTHING
                    """, [topic, Int(gap.partition), gap.from, gap.to, gap.reason])
            }
            return (written, fold.pushes)
        }
    }

    static let upsert = """
        INSERT INTO push_deliveries AS d (match_id, user_id, device_id, channel_id, sent, accepted, refused, retried, superseded, dead,
                                          last_start, last_update, last_key_event, last_end, last_failure, recent, first_at, last_at)
        SELECT r.m, r.u, r.d, r.c, r.sent, r.accepted, r.refused, r.retried, r.superseded, r.dead, r.ls, r.lu, r.lk, r.le, r.lf, r.recent,
               to_timestamp(r.first_at / 1000.0), to_timestamp(r.last_at / 1000.0)
        FROM jsonb_to_recordset($1::jsonb) AS r(m text, u text, d text, c text, sent bigint, accepted bigint, refused bigint, retried bigint,
                                                superseded bigint, dead bigint, ls jsonb, lu jsonb, lk jsonb, le jsonb, lf jsonb, recent jsonb,
                                                first_at bigint, last_at bigint)
        ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET
            channel_id = coalesce(EXCLUDED.channel_id, d.channel_id),
            sent = d.sent + EXCLUDED.sent, accepted = d.accepted + EXCLUDED.accepted, refused = d.refused + EXCLUDED.refused,
            retried = d.retried + EXCLUDED.retried, superseded = d.superseded + EXCLUDED.superseded, dead = d.dead + EXCLUDED.dead,
            last_start = CASE WHEN EXCLUDED.last_start IS NOT NULL AND (d.last_start IS NULL
                              OR (EXCLUDED.last_start->>'finishedAt')::bigint >= (d.last_start->>'finishedAt')::bigint)
                         THEN EXCLUDED.last_start ELSE d.last_start END,
            last_update = CASE WHEN EXCLUDED.last_update IS NOT NULL AND (d.last_update IS NULL
                              OR (EXCLUDED.last_update->>'finishedAt')::bigint >= (d.last_update->>'finishedAt')::bigint)
                         THEN EXCLUDED.last_update ELSE d.last_update END,
            last_key_event = CASE WHEN EXCLUDED.last_key_event IS NOT NULL AND (d.last_key_event IS NULL
                              OR (EXCLUDED.last_key_event->>'finishedAt')::bigint >= (d.last_key_event->>'finishedAt')::bigint)
                         THEN EXCLUDED.last_key_event ELSE d.last_key_event END,
            last_end = CASE WHEN EXCLUDED.last_end IS NOT NULL AND (d.last_end IS NULL
                              OR (EXCLUDED.last_end->>'finishedAt')::bigint >= (d.last_end->>'finishedAt')::bigint)
                         THEN EXCLUDED.last_end ELSE d.last_end END,
            last_failure = CASE WHEN EXCLUDED.last_failure IS NOT NULL AND (d.last_failure IS NULL
                              OR (EXCLUDED.last_failure->>'finishedAt')::bigint >= (d.last_failure->>'finishedAt')::bigint)
                         THEN EXCLUDED.last_failure ELSE d.last_failure END,
            recent = jsonb_path_query_array(EXCLUDED.recent || d.recent, '$[0 to \(DeliveryFold.recentLimit - 1)]'),
            first_at = least(d.first_at, EXCLUDED.first_at), last_at = greatest(d.last_at, EXCLUDED.last_at)
        """

    /// The JSON array of rows `upsert` reads.
    static func document(_ subjects: ArraySlice<DeliverySubject>, _ fold: DeliveryFold) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(subjects.count * 900)
        out.append(UInt8(ascii: "["))
        for (index, subject) in subjects.enumerated() {
            guard let delta = fold.deltas[subject] else { continue }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"m":"#.utf8)
            JSONBytes.string(subject.matchId, &out)
            out.append(contentsOf: #","u":"#.utf8)
            JSONBytes.string(subject.userId, &out)
            out.append(contentsOf: #","d":"#.utf8)
            JSONBytes.string(subject.deviceId, &out)
            if let channel = delta.channelId {
                out.append(contentsOf: #","c":"#.utf8)
                JSONBytes.string(channel, &out)
            }
            for (key, value) in [("sent", delta.sent), ("accepted", delta.accepted), ("refused", delta.refused), ("retried", delta.retried),
                                 ("superseded", delta.superseded), ("dead", delta.dead)] {
                out.append(contentsOf: ",\"\(key)\":".utf8)
                JSONBytes.integer(value, &out)
            }
            for (key, kind) in [("ls", DeliveryKind.start), ("lu", .update), ("lk", .keyEvent), ("le", .end)] {
                guard let entry = delta.last[kind] else { continue }
                out.append(contentsOf: ",\"\(key)\":".utf8)
                entry.write(&out)
            }
            if let failure = delta.lastFailure {
                out.append(contentsOf: #","lf":"#.utf8)
                failure.write(&out)
            }
            out.append(contentsOf: #","recent":["#.utf8)
            for (position, entry) in delta.recent.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                entry.write(&out)
            }
            out.append(contentsOf: #"],"first_at":"#.utf8)
            JSONBytes.integer(delta.firstAt, &out)
            out.append(contentsOf: #","last_at":"#.utf8)
            JSONBytes.integer(delta.lastAt, &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

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

    /// The row of one activity, or nil.
    public func row(matchId: String, userId: String, deviceId: String) async throws -> Row? {
        try await database.query("SELECT \(Self.rowColumns) FROM push_deliveries WHERE match_id = $1 AND user_id = $2 AND device_id = $3",
                                 [matchId, userId, deviceId], prepared: true).map(Self.decodeRow).first
    }

    /// The rows of a user's devices (of one device when `deviceId` is given), newest first, at most `limit`.
    public func rows(userId: String, deviceId: String? = nil, limit: Int = 50) async throws -> [Row] {
        try await database.query(
            """
            SELECT \(Self.rowColumns) FROM push_deliveries WHERE user_id = $1 AND ($2::text IS NULL OR device_id = $2)
            ORDER BY last_at DESC LIMIT $3
            """, [userId, deviceId, limit], prepared: true).map(Self.decodeRow)
    }

    /// The broadcast channel rows of a match.
    public func channelRows(matchId: String) async throws -> [Row] {
        try await database.query("SELECT \(Self.rowColumns) FROM push_deliveries WHERE match_id = $1 AND user_id = '' ORDER BY device_id",
                                 [matchId], prepared: true).map(Self.decodeRow)
    }

    static func decodeRow(_ row: PostgresRow) throws -> Row {
        func entry(_ column: String) throws -> DeliveryEntry? {
            try row.decode(column, as: PostgresJSON?.self).map { try $0.decode(DeliveryEntry.self) }
        }
        return Row(
            matchId: try row.decode("match_id"), userId: try row.decode("user_id"), deviceId: try row.decode("device_id"),
            channelId: try row.decode("channel_id"), sent: try row.decode("sent"), accepted: try row.decode("accepted"),
            refused: try row.decode("refused"), retried: try row.decode("retried"), superseded: try row.decode("superseded"),
            dead: try row.decode("dead"), lastStart: try entry("last_start"), lastUpdate: try entry("last_update"),
            lastKeyEvent: try entry("last_key_event"), lastEnd: try entry("last_end"), lastFailure: try entry("last_failure"),
            recent: try row.decode("recent", as: PostgresJSON.self).decode([DeliveryEntry].self),
            firstAt: try row.decode("first_at"), lastAt: try row.decode("last_at"))
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
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY f) / 1000.0 AS p50,
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY f) / 1000.0 AS p99
            FROM (SELECT accepted, refused, dead, superseded, retried,
                         (CASE WHEN coalesce((last_key_event->>'finishedAt')::bigint, 0) >= coalesce((last_update->>'finishedAt')::bigint, 0)
                               THEN last_key_event ELSE last_update END ->> 'freshnessMs')::double precision AS f
                  FROM push_deliveries WHERE match_id = $1) AS t
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

    // MARK: - Retention

    /// Deletes the rows of matches whose last push is older than `before` (a match's rows all go together, by its primary
    /// key prefix, `batchSize` at a time), then those matches' entries, and gaps detected before `before`.
    /// - Returns: rows deleted.
    public func sweep(before: Date, batchSize: Int, maxBatches: Int) async throws -> Int {
        let idle = try await database.query(
            "SELECT match_id FROM delivery_record_matches WHERE last_at < $1 ORDER BY last_at LIMIT 100", [before], prepared: true)
            .map { try $0.decode("match_id", as: String.self) }
        var deleted = 0
        var batches = 0
        for match in idle where batches < maxBatches {
            while batches < maxBatches {
                let count = try await database.execute(
                    """
                    DELETE FROM push_deliveries WHERE ctid = ANY(ARRAY(SELECT ctid FROM push_deliveries WHERE match_id = $1 LIMIT $2))
                    """, [match, batchSize])
                deleted += count
                batches += 1
                if count < batchSize {
                    // Gone: forget the match, unless a push arrived meanwhile (then its entry is newer).
                    try await database.execute("DELETE FROM delivery_record_matches WHERE match_id = $1 AND last_at < $2", [match, before])
                    break
                }
            }
        }
        try await database.execute("DELETE FROM delivery_record_gaps WHERE detected_at < $1", [before])
        return deleted
    }
}
