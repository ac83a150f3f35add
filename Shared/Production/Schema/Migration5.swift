import Postgres

extension SightscreenMigrations {
    /// Version 5 (issue 15): the poller's ball history, so `sportmonks.fixtures` messages carry only what
    /// changed and stay bounded however long a match runs.
    ///
    /// - `feed_cursors`: per match, the `seq` of the last snapshot recorded (the chain position). Moved only by
    ///   compare-and-set, so two pollers (a leader change) can never both extend one chain.
    /// - `feed_balls`: one row per delivery version: written at `seq` (the page that carries it), its
    ///   fingerprint, and its JSON as served (NULL: removed at `seq`). Rows are never rewritten; the deliveries
    ///   as of any `seq` are the latest version at or below it, and a consumer that missed a link rebuilds
    ///   from here.
    public static let feedBalls = PostgresMigration(
        version: 5, name: "feed_cursors and feed_balls",
        sql: """
            CREATE TABLE feed_cursors (
                match_id     text        PRIMARY KEY,
                seq          bigint      NOT NULL CHECK (seq > 0),
                recorded_at  timestamptz NOT NULL DEFAULT now()
            );
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
