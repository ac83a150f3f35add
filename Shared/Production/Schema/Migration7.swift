import Postgres

extension SightscreenMigrations {
    /// Version 7 (issue 16): the detector's state is stored once. `active_matches.detector_state` is the state;
    /// the seeds' columns `previous_scores`, `cooldowns` and `last_balls` become columns PostgreSQL derives from
    /// it (generated, stored: readable as before, never written), and the display state lives only in
    /// `display_state` (the detector leaves it out of `detector_state`).
    public static let detectorStateOnce = PostgresMigration(
        version: 7, name: "detector state stored once",
        sql: """
            ALTER TABLE active_matches DROP COLUMN previous_scores, DROP COLUMN cooldowns, DROP COLUMN last_balls;
            ALTER TABLE active_matches
                ADD COLUMN previous_scores jsonb GENERATED ALWAYS AS (coalesce(detector_state -> 'previousScores', '{}'::jsonb)) STORED,
                ADD COLUMN cooldowns jsonb GENERATED ALWAYS AS (coalesce(detector_state -> 'cooldowns', '{}'::jsonb)) STORED,
                ADD COLUMN last_balls jsonb GENERATED ALWAYS AS (coalesce(detector_state -> 'lastBalls', '[]'::jsonb)) STORED;
            UPDATE active_matches SET detector_state = detector_state - 'displayState' WHERE detector_state ? 'displayState';
            """)
}
