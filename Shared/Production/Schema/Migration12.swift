import Postgres

extension SightscreenMigrations {
    /// Version 12 (issue 42): an outcome's identity in the delivery record includes which sending of its job it reports
    /// (`PushOutcome.sendId`). With (match, job, finish time) alone, two sendings of one job that finished in the same
    /// millisecond (two copies in flight together) were recorded once, and the record then disagreed with what APNs took.
    /// Outcomes from a sender before this carry no send id: 0, as before. Re-keying rebuilds the table's primary key
    /// under a lock; the table holds only the matches within retention.
    public static let outcomeSendID = PostgresMigration(
        version: 12, name: "outcome send id",
        sql: """
            ALTER TABLE delivery_outcomes
                ADD COLUMN send_id bigint NOT NULL DEFAULT 0,
                DROP CONSTRAINT delivery_outcomes_pkey,
                ADD PRIMARY KEY (match_id, job_key, finished_at, send_id);
            """)
}
