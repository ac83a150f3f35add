import Contracts
import Foundation
import Postgres

/// Every read and write of the delivery record's tables (`push_deliveries`, `delivery_jobs`, `delivery_outcomes`,
/// `delivery_record_offsets`, `delivery_record_gaps`, `delivery_record_matches`): la-coordinator's recorder writes folds
/// (here, with its statements in `+Statements`), support's views and the match report read (`+Reading`), the TTL sweep
/// removes old matches (`+Retention`); a deleted device's rows go in `DeviceStore.delete`'s statement.
public struct DeliveryRecordStore: Sendable {
    public let database: PostgresClient
    /// Rows per statement of a fold's write (each value an array parameter).
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

    /// An outcome's identity: a replayed message has the same, another sending of its job (`sendId`) a new one.
    static func identity(_ match: String, _ jobKey: Int64, _ finishedAt: Int64, _ sendId: Int64) -> String {
        "\(match)|\(jobKey)|\(finishedAt)|\(sendId)"
    }

    /// Folds and writes a batch in one transaction, exactly once per outcome: each outcome's identity (match, job,
    /// finish time, send id — a replayed message has the same, a job apns-sender sent again a new one) goes into
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
                var sends = PostgresTextArray.Builder()
                for item in batch {
                    matches.append(item.outcome.matchId)
                    keys.append(DeliverySlot.key(jobId: item.outcome.jobId))
                    finished.append(item.outcome.finishedAt)
                    sends.append(item.outcome.sendId ?? 0)
                }
                let inserted = try await connection.query(
                    """
                    INSERT INTO delivery_outcomes (match_id, job_key, finished_at, send_id)
                    SELECT DISTINCT m, k, f, s FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS u(m, k, f, s)
                    ORDER BY m, k, f, s
                    ON CONFLICT DO NOTHING RETURNING match_id, job_key, finished_at, send_id
                    """, [matches.literal, keys.literal, finished.literal, sends.literal], prepared: true)
                for row in inserted {
                    fresh.insert(Self.identity(try row.decode("match_id", as: String.self), try row.decode("job_key", as: Int64.self),
                                               try row.decode("finished_at", as: Int64.self), try row.decode("send_id", as: Int64.self)))
                }
            }
            var fold = DeliveryFold()
            for item in batch {
                let identity = Self.identity(item.outcome.matchId, DeliverySlot.key(jobId: item.outcome.jobId), item.outcome.finishedAt,
                                             item.outcome.sendId ?? 0)
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
}
