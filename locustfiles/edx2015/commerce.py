"""Calls to the LMS's commerce API as a logged-in learner's browser makes them (2015:
locust/ecommerce/commerce.py)."""

from locustfiles.edx2015.auto_auth import AutoAuthTasks


class CommerceTasks(AutoAuthTasks):
    def lms_post(self, path: str, body: str):
        """POST ``body`` (JSON text) to the LMS with the headers Django's CSRF check wants. These
        replace any the caller might give; TLS certificates are not checked (a test LMS's)."""
        headers = {
            "X-CSRFToken": self.client.cookies.get("csrftoken", ""),
            "Referer": self.user.host,
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        return self.client.post(path, data=body, headers=headers, verify=False)
