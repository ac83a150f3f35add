import Postgres

extension SightscreenMigrations {
    /// Version 4 (api): when a live match last had a key event, so GET /matches/live can ask clients
    /// to poll faster in key moments. The detector sets it when it emits a priority-10 key event.
    public static let keyEventTime = PostgresMigration(
        version: 4, name: "active_matches.last_key_event_at",
        sql: """
            ALTER TABLE active_matches ADD COLUMN IF NOT EXISTS last_key_event_at timestamptz;
            """)
}
