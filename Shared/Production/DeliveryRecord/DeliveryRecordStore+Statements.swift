import Contracts
import Foundation
import Postgres
import Runtime

/// The recorder's write statements and their array parameters (`record` runs them).
extension DeliveryRecordStore {
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
}
