import Postgres

extension SightscreenMigrations {
    /// Version 5 (issue 15): the poller's ball history, so `sportmonks.fixtures` messages carry only what
    /// changed and stay bounded however long a match runs.
    ///
    /// - `matches.feed_seq`: the `seq` of the last snapshot published for the match (its chain position).
    /// - `feed_balls`: one row per delivery version: written at `seq` (the page that carries it), its
    ///   fingerprint, and its JSON as served (NULL: removed at `seq`). The deliveries as of any `seq` are the
    ///   latest version at or below it; a consumer that missed a link rebuilds from here.
    public static let feedBalls = PostgresMigration(
        version: 5, name: "feed_balls",
        sql: """
            ALTER TABLE matches ADD COLUMN IF NOT EXISTS feed_seq bigint NOT NULL DEFAULT 0;
            CREATE TABLE feed_balls (
                match_id  text    NOT NULL,
                ball_id   bigint  NOT NULL,
                seq       bigint  NOT NULL CHECK (seq > 0),
                hash      bigint  NOT NULL,
                ball      jsonb,
                PRIMARY KEY (match_id, ball_id, seq)
            );
            """)
}
