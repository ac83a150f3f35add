import Postgres

extension SightscreenMigrations {
    /// Version 11 (issue 38): the delivery record — what each Live Activity (and each broadcast channel) was sent and
    /// what APNs answered, folded from `push.outcomes` by la-coordinator's delivery recorder (docs/DELIVERY.md).
    ///
    /// - `push_deliveries`: one row per (match, user, device); a broadcast channel's row has `user_id` '' and the APNs
    ///   environment as `device_id`. Totals (targets sent to APNs, accepted, refused, extra requests, superseded, dead),
    ///   the last delivery of each kind (`last_start`, `last_update` — priority 5 —, `last_key_event` — priority 10 —,
    ///   `last_end`, each with its finish time `*_at` to compare), the newest refused or dead one (`last_failure`, kept
    ///   when it leaves the history), `recent` (the last 20, newest first) and the freshness of the newest accepted update
    ///   or key event (`fresh_ms`). Deliveries are fixed 84-byte `DeliverySlot`s (result, status, reason, apns-id, token
    ///   tail, when APNs answered, tries, the job's key): PostgreSQL merges them with byte operations, parsing nothing.
    /// - `delivery_jobs`: what a job's pushes share (id, kind, seq, content timestamp, times), once per job. Tokens are stored masked
    ///   (`TokenMask`). Rows go with their device (`DeviceStore.delete`) and with their match `DELIVERY_RECORD_RETENTION_MS`
    ///   after its last push (the TTL sweep, through `delivery_record_matches`). `fillfactor` 70 and no index on a column a
    ///   fold changes: a fold's update is HOT.
    /// - `delivery_outcomes`: the identity of every outcome folded (match, job, finish time), written in the same
    ///   transaction as the rows: an outcome is folded exactly once, whatever the consumer group replays.
    /// - `delivery_record_offsets`: per `push.outcomes` partition, the next offset after the last batch: where the record
    ///   stands, and where it has a gap.
    /// - `delivery_record_gaps`: offsets of `push.outcomes` never folded (gone from the topic before the recorder read
    ///   them, or unreadable): the record says where it may miss pushes.
    public static let deliveryRecord = PostgresMigration(
        version: 11, name: "delivery record",
        sql: """
            CREATE TABLE push_deliveries (
                match_id        text        NOT NULL,
                user_id         text        NOT NULL,
                device_id       text        NOT NULL,
                channel_id      text,
                sent            bigint      NOT NULL DEFAULT 0 CHECK (sent >= 0),
                accepted        bigint      NOT NULL DEFAULT 0 CHECK (accepted >= 0),
                refused         bigint      NOT NULL DEFAULT 0 CHECK (refused >= 0),
                retried         bigint      NOT NULL DEFAULT 0 CHECK (retried >= 0),
                superseded      bigint      NOT NULL DEFAULT 0 CHECK (superseded >= 0),
                dead            bigint      NOT NULL DEFAULT 0 CHECK (dead >= 0),
                last_start      bytea,
                ls_at           bigint,
                last_update     bytea,
                lu_at           bigint,
                last_key_event  bytea,
                lk_at           bigint,
                last_end        bytea,
                le_at           bigint,
                last_failure    bytea,
                lf_at           bigint,
                recent          bytea       NOT NULL DEFAULT '',
                fresh_ms        integer,
                fresh_at        bigint,
                first_at        timestamptz NOT NULL,
                last_at         timestamptz NOT NULL,
                PRIMARY KEY (match_id, user_id, device_id)
            ) WITH (fillfactor = 70);
            -- Slots stay in the row, uncompressed: an update is a byte copy, never a TOAST write or a compression.
            ALTER TABLE push_deliveries ALTER COLUMN recent SET STORAGE PLAIN, ALTER COLUMN last_start SET STORAGE PLAIN,
                ALTER COLUMN last_update SET STORAGE PLAIN, ALTER COLUMN last_key_event SET STORAGE PLAIN,
                ALTER COLUMN last_end SET STORAGE PLAIN, ALTER COLUMN last_failure SET STORAGE PLAIN;

            -- What every push of one job shares, once per job: its id, kind, seq, content timestamp, times.
            CREATE TABLE delivery_jobs (
                match_id     text     NOT NULL,
                job_key      bigint   NOT NULL,
                job_id       text     NOT NULL,
                kind         text     NOT NULL,
                priority     integer  NOT NULL,
                seq          bigint   NOT NULL,
                content_ts   bigint,
                created_at   bigint   NOT NULL,
                finished_at  bigint   NOT NULL,
                known_at     bigint,
                trim_step    integer,
                PRIMARY KEY (match_id, job_key)
            );
            CREATE INDEX push_deliveries_user_idx ON push_deliveries (user_id, device_id);
            -- No index on a column a fold changes (totals, last_*, recent, last_at): every fold's update stays HOT (in
            -- the page, no index write). Retention goes by match instead (delivery_record_matches).

            -- Every outcome folded, by identity (a replayed message has the same one; a job sent again a new one): what makes
            -- a fold exactly once, whatever the consumer group replays.
            CREATE TABLE delivery_outcomes (
                match_id     text    NOT NULL,
                job_key      bigint  NOT NULL,
                finished_at  bigint  NOT NULL,
                PRIMARY KEY (match_id, job_key, finished_at)
            );

            -- Per match, when its record last changed: what the TTL sweep reads (one row per match, one write per batch).
            CREATE TABLE delivery_record_matches (
                match_id  text        PRIMARY KEY,
                last_at   timestamptz NOT NULL
            );
            CREATE INDEX delivery_record_matches_last_at_idx ON delivery_record_matches (last_at);

            CREATE TABLE delivery_record_offsets (
                topic        text        NOT NULL,
                partition    integer     NOT NULL CHECK (partition >= 0),
                next_offset  bigint      NOT NULL CHECK (next_offset >= 0),
                updated_at   timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (topic, partition)
            );

            CREATE TABLE delivery_record_gaps (
                topic        text        NOT NULL,
                partition    integer     NOT NULL,
                from_offset  bigint      NOT NULL,
                to_offset    bigint      NOT NULL,
                reason       text        NOT NULL,
                detected_at  timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (topic, partition, from_offset)
            );
            CREATE INDEX delivery_record_gaps_detected_idx ON delivery_record_gaps (detected_at);
            """)
}
