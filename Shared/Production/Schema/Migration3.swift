import Postgres

extension SightscreenMigrations {
    /// Version 3: the poller's memory of what it last published per match, so a restart (or a new leader)
    /// does not republish unchanged fixtures: `feed_hash` is the canonical hash of the fixture JSON last
    /// published to `sportmonks.fixtures`, `feed_published_at` when that was.
    public static let pollerFeedHash = PostgresMigration(
        version: 3, name: "matches.feed_hash",
        sql: """
            ALTER TABLE matches ADD COLUMN feed_hash text;
            ALTER TABLE matches ADD COLUMN feed_published_at timestamptz;
            """)
}
