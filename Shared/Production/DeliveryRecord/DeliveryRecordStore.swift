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

    /// One outcome taken off `push.outcomes`, with where it was.
    public struct Recorded: Sendable {
        public var partition: Int32
        public var offset: Int64
        public var outcome: PushOutcome

        public init(partition: Int32, offset: Int64, outcome: PushOutcome) {
            self.partition = partition
            self.offset = offset
            self.outcome = outcome
        }
    }

    /// Folds and writes a batch in one transaction, exactly once per outcome: each outcome's identity (match, job,
    /// finish time — a replayed message has the same, a job apns-sender sent again a new one) goes into
    /// `delivery_outcomes` first, and only those not there before are folded. This holds whatever the consumer group
    /// replays, whichever recorder gets a partition, and if the topic is ever recreated. The partitions' offset rows
    /// (locked, in order) say where the record stands: a batch that starts past the stored next offset leaves a gap (the
    /// outcomes between were never read), written with `unreadable` (outcomes that could not be decoded).
    /// - Returns: rows written and pushes folded (0 for a batch folded before).
    public func record(topic: String, batch: [Recorded], unreadable: [Gap] = []) async throws -> (rows: Int, pushes: Int) {
        var first: [Int32: Int64] = [:]
        var next: [Int32: Int64] = [:]
        for item in batch {
            first[item.partition] = min(first[item.partition] ?? item.offset, item.offset)
            next[item.partition] = max(next[item.partition] ?? 0, item.offset + 1)
        }
        for gap in unreadable {
            first[gap.partition] = min(first[gap.partition] ?? gap.from, gap.from)
            next[gap.partition] = max(next[gap.partition] ?? 0, gap.to + 1)
        }
        return try await database.withTransaction { connection in
            let ordered = next.keys.sorted()
            if !ordered.isEmpty {
                try await connection.execute(
                    """
                    INSERT INTO delivery_record_offsets (topic, partition, next_offset)
                    SELECT $1, p, o FROM unnest($2::int[], $3::bigint[]) AS u(p, o) ON CONFLICT DO NOTHING
                    """, [topic, PostgresTextArray.literal(ordered.map(String.init)), PostgresTextArray.literal(ordered.map { String(first[$0] ?? 0) })],
                    prepared: true)
            }
            let rows = try await connection.query(
                "SELECT partition, next_offset FROM delivery_record_offsets WHERE topic = $1 AND partition = ANY($2::int[]) ORDER BY partition FOR UPDATE",
                [topic, PostgresTextArray.literal(ordered.map(String.init))], prepared: true)
            var stored: [Int32: Int64] = [:]
            for row in rows { stored[Int32(try row.decode("partition", as: Int.self))] = try row.decode("next_offset", as: Int64.self) }
            var gaps = unreadable
            for (partition, offset) in first.sorted(by: { $0.key < $1.key }) where offset > (stored[partition] ?? offset) {
                gaps.append(.init(partition: partition, from: stored[partition] ?? 0, to: offset - 1,
                                  reason: "not on the topic when the recorder read it (retention, or a reset group)"))
            }
            // Exactly once: only outcomes whose identity is new are folded.
            var fresh = Set<String>()
            if !batch.isEmpty {
                var matches = PostgresTextArray.Builder(), keys = PostgresTextArray.Builder(), finished = PostgresTextArray.Builder()
                for item in batch {
                    matches.append(item.outcome.matchId)
                    keys.append(DeliverySlot.key(jobId: item.outcome.jobId))
                    finished.append(item.outcome.finishedAt)
                }
                let inserted = try await connection.query(
                    """
                    INSERT INTO delivery_outcomes (match_id, job_key, finished_at)
                    SELECT DISTINCT m, k, f FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(m, k, f) ORDER BY m, k, f
                    ON CONFLICT DO NOTHING RETURNING match_id, job_key, finished_at
                    """, [matches.literal, keys.literal, finished.literal], prepared: true)
                for row in inserted {
                    fresh.insert("\(try row.decode("match_id", as: String.self))|\(try row.decode("job_key", as: Int64.self))|\(try row.decode("finished_at", as: Int64.self))")
                }
            }
            var fold = DeliveryFold()
            for item in batch {
                let identity = "\(item.outcome.matchId)|\(DeliverySlot.key(jobId: item.outcome.jobId))|\(item.outcome.finishedAt)"
                if fresh.remove(identity) != nil { fold.add(item.outcome) }
            }
            var written = 0
            // One order for every writer, so two recorders never deadlock on each other's rows: by a hash of the row's key
            // (sorting the keys themselves compares strings, a noticeable part of a 200,000-row batch).
            let subjects = fold.deltas.keys.map { (key: $0, order: $0.order) }.sorted { $0.order < $1.order }.map(\.key)
            var start = subjects.startIndex
            while start < subjects.endIndex {
                let end = min(start + rowsPerStatement, subjects.endIndex)
                written += try await connection.execute(Self.upsert, Self.rowParameters(subjects[start..<end], fold), prepared: true)
                start = end
            }
            let jobs = fold.jobs.values.sorted { ($0.matchId, $0.jobId) < ($1.matchId, $1.jobId) }
            if !jobs.isEmpty { try await connection.execute(Self.upsertJobs, Self.jobParameters(jobs), prepared: true) }
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
            let advanced = next.sorted { $0.key < $1.key }
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

    /// The slot columns with their comparison times, in parameter order after the totals.
    static let slotColumns: [(kind: DeliveryKind?, column: String, at: String)] = [
        (.start, "last_start", "ls_at"), (.update, "last_update", "lu_at"), (.keyEvent, "last_key_event", "lk_at"),
        (.end, "last_end", "le_at"), (nil, "last_failure", "lf_at"),
    ]

    /// One statement per `rowsPerStatement` rows, every value an array parameter: ids, totals, each slot as hex with its
    /// finish time (0: none), the new recent slots (newest first), freshness. A row that exists adds its totals, keeps the
    /// newer of each slot, and puts the new recent slots before the old ones, cut at `DeliveryFold.recentLimit` slots.
    static let upsert: String = {
        let slotSelect = slotColumns.enumerated().map { index, slot in
            "decode(nullif(u.s\(index), ''), 'hex'), nullif(u.t\(index), 0)"
        }.joined(separator: ", ")
        let slotAliases = slotColumns.indices.map { "s\($0), t\($0)" }.joined(separator: ", ")
        let slotParameters = slotColumns.indices.map { "$\(11 + 2 * $0)::text[], $\(12 + 2 * $0)::bigint[]" }.joined(separator: ", ")
        let slotUpdates = slotColumns.map { slot in
            "\(slot.column) = CASE WHEN EXCLUDED.\(slot.at) >= coalesce(d.\(slot.at), 0) THEN EXCLUDED.\(slot.column) ELSE d.\(slot.column) END, "
                + "\(slot.at) = greatest(d.\(slot.at), EXCLUDED.\(slot.at))"
        }.joined(separator: ",\n    ")
        return """
            INSERT INTO push_deliveries AS d (match_id, user_id, device_id, channel_id, sent, accepted, refused, retried, superseded, dead,
                \(slotColumns.map { "\($0.column), \($0.at)" }.joined(separator: ", ")), recent, fresh_ms, fresh_at, first_at, last_at)
            SELECT u.m, u.u, u.d, nullif(u.c, ''), u.sent, u.accepted, u.refused, u.retried, u.superseded, u.dead, \(slotSelect),
                   decode(u.recent, 'hex'), nullif(u.fresh_ms, -1), nullif(u.fresh_at, 0), to_timestamp(u.first_at / 1000.0),
                   to_timestamp(u.last_at / 1000.0)
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],
                        $10::bigint[], \(slotParameters), $21::text[], $22::int[], $23::bigint[], $24::bigint[], $25::bigint[])
                 AS u(m, u, d, c, sent, accepted, refused, retried, superseded, dead, \(slotAliases), recent, fresh_ms, fresh_at, first_at, last_at)
            ON CONFLICT (match_id, user_id, device_id) DO UPDATE SET
                channel_id = coalesce(EXCLUDED.channel_id, d.channel_id),
                sent = d.sent + EXCLUDED.sent, accepted = d.accepted + EXCLUDED.accepted, refused = d.refused + EXCLUDED.refused,
                retried = d.retried + EXCLUDED.retried, superseded = d.superseded + EXCLUDED.superseded, dead = d.dead + EXCLUDED.dead,
                \(slotUpdates),
                recent = substring(EXCLUDED.recent || d.recent FROM 1 FOR \(DeliveryFold.recentLimit * DeliverySlot.size)),
                fresh_ms = CASE WHEN EXCLUDED.fresh_at >= coalesce(d.fresh_at, 0) THEN EXCLUDED.fresh_ms ELSE d.fresh_ms END,
                fresh_at = greatest(d.fresh_at, EXCLUDED.fresh_at),
                first_at = least(d.first_at, EXCLUDED.first_at), last_at = greatest(d.last_at, EXCLUDED.last_at)
            """
    }()

    /// The array parameters of `upsert` for `subjects` (public for `delivery-record-bench`).
    public static func rowParameters(_ subjects: ArraySlice<DeliverySubject>, _ fold: DeliveryFold) -> [PostgresValue?] {
        var columns = [PostgresTextArray.Builder](repeating: PostgresTextArray.Builder(capacity: subjects.count * 16), count: 25)
        for subject in subjects {
            guard let delta = fold.deltas[subject] else { continue }
            columns[0].append(subject.matchId)
            columns[1].append(subject.userId)
            columns[2].append(subject.deviceId)
            columns[3].append(delta.channelId ?? "")
            for (index, value) in [delta.sent, delta.accepted, delta.refused, delta.retried, delta.superseded, delta.dead].enumerated() {
                columns[4 + index].append(Int64(value))
            }
            for (index, slot) in slotColumns.enumerated() {
                let entry = slot.kind.map { delta.last[$0] } ?? delta.lastFailure
                if let entry {
                    columns[10 + 2 * index].appendHex { DeliverySlot(entry).write(&$0) }
                } else {
                    columns[10 + 2 * index].append("")
                }
                columns[11 + 2 * index].append(entry?.finishedAt ?? 0)
            }
            columns[20].appendHex { out in for entry in delta.recent { DeliverySlot(entry).write(&out) } }
            columns[21].append(delta.freshnessMs.map { Int64(Int32(clamping: $0)) } ?? -1)
            columns[22].append(delta.freshnessAt)
            columns[23].append(delta.firstAt)
            columns[24].append(delta.lastAt)
        }
        return columns.map(\.literal)
    }

    static let upsertJobs = """
        INSERT INTO delivery_jobs AS j (match_id, job_key, job_id, kind, priority, seq, content_ts, created_at, finished_at, known_at, trim_step)
        SELECT u.m, u.k, u.j, u.kind, u.p, u.seq, nullif(u.ts, -1), u.c, u.f, nullif(u.known, -1), nullif(u.trim, 0)
        FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],
                    $10::bigint[], $11::int[]) AS u(m, k, j, kind, p, seq, ts, c, f, known, trim)
        ON CONFLICT (match_id, job_key) DO UPDATE SET finished_at = greatest(j.finished_at, EXCLUDED.finished_at)
        """

    static func jobParameters(_ jobs: [DeliveryJob]) -> [PostgresValue?] {
        [
            PostgresTextArray.literal(jobs.map(\.matchId)), PostgresTextArray.literal(jobs.map { String(DeliverySlot.key(jobId: $0.jobId)) }),
            PostgresTextArray.literal(jobs.map(\.jobId)), PostgresTextArray.literal(jobs.map(\.kind.rawValue)),
            PostgresTextArray.literal(jobs.map { String($0.priority) }), PostgresTextArray.literal(jobs.map { String($0.seq) }),
            PostgresTextArray.literal(jobs.map { String($0.contentTimestamp ?? -1) }), PostgresTextArray.literal(jobs.map { String($0.createdAt) }),
            PostgresTextArray.literal(jobs.map { String($0.finishedAt) }), PostgresTextArray.literal(jobs.map { String($0.knownAt ?? -1) }),
            PostgresTextArray.literal(jobs.map { String($0.trimStep ?? 0) }),
        ]
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
                    try await database.execute("DELETE FROM delivery_jobs WHERE match_id = $1", [match])
                    try await database.execute("DELETE FROM delivery_outcomes WHERE match_id = $1", [match])
                    try await database.execute("DELETE FROM delivery_record_matches WHERE match_id = $1 AND last_at < $2", [match, before])
                    break
                }
            }
        }
        try await database.execute("DELETE FROM delivery_record_gaps WHERE detected_at < $1", [before])
        return deleted
    }
}
