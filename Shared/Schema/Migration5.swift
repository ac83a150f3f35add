import Postgres

extension SightscreenMigrations {
    /// Version 5: the la-coordinator's fan-out index. The active rows of one match in (user_id, device_id)
    /// order with the update token included, so the fan-out cursor (`ORDER BY user_id, device_id`, which
    /// makes job ids deterministic) reads the index in order instead of sorting a million rows.
    public static let fanOutIndex = PostgresMigration(
        version: 5, name: "live_activities fan-out index",
        sql: """
            CREATE INDEX live_activities_fanout_idx ON live_activities (match_id, user_id, device_id)
                INCLUDE (update_token) WHERE status = 'active';
            """)
}
