from django.db import models


class Enrollment(models.Model):
    """A learner's enrollment in a course, one row per (user, course)."""

    # Compared exactly, as usernames are (lms_stub/learners/migrations): under the database's
    # utf8mb4_unicode_ci "Ana" and "ana" would share one enrollment per course.
    user = models.CharField(max_length=150, db_collation="utf8mb4_bin")
    course_id = models.CharField(max_length=255)
    mode = models.CharField(max_length=50)
    is_active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "course_id"], name="one_enrollment_per_course")
        ]

    def as_json(self) -> dict:
        return {
            "user": self.user,
            "mode": self.mode,
            "is_active": self.is_active,
            "course_details": {"course_id": self.course_id},
            "created": self.created.isoformat(),
        }
