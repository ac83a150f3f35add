import Postgres

extension SightscreenMigrations {
    /// Version 6 (issue 15): Live Activities per day of play.
    ///
    /// - `matches.close_of_play`: the match is live but at close of play ("Stump Day N"). Followers have a
    ///   running Live Activity only while `is_live AND NOT close_of_play`; `is_live` stays true overnight
    ///   (the match is still on).
    /// - `live_activities.end_reason` may be `day_end`: the day's activity was ended at stumps, and the
    ///   orchestrator starts the next day's when play resumes.
    /// - `live_activities.day_start_attempt`: the `start_attempts` value of the row's latest fresh start (its
    ///   first, or a new day's, or a rollover before iOS's 8-hour limit). Re-starts after token_invalid are
    ///   counted from it, so a new day never eats into the budget; `start_attempts` itself only grows, which
    ///   keeps every start's job id distinct.
    /// - `live_activities.activated_at`: when the current activity became ACTIVE (its update token first
    ///   registered), for the 8-hour rollover.
    public static let activityDays = PostgresMigration(
        version: 6, name: "activities per day of play",
        sql: """
            ALTER TABLE matches ADD COLUMN close_of_play boolean NOT NULL DEFAULT false;
            UPDATE matches SET close_of_play = true WHERE status LIKE 'Stump Day %';
            ALTER TABLE live_activities DROP CONSTRAINT live_activities_end_reason_check;
            ALTER TABLE live_activities ADD CONSTRAINT live_activities_end_reason_check
                CHECK (end_reason IN ('match_end', 'user_unfollow', 'user_dismissed', 'token_invalid', 'day_end'));
            ALTER TABLE live_activities ADD COLUMN day_start_attempt integer NOT NULL DEFAULT 1
                CHECK (day_start_attempt >= 1);
            ALTER TABLE live_activities ADD COLUMN activated_at timestamptz;
            UPDATE live_activities SET activated_at = updated_at WHERE status = 'active';
            CREATE INDEX live_activities_activated_at_idx ON live_activities (activated_at) WHERE status = 'active';
            """)
}
