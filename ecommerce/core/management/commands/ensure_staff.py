import os

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Create the Oscar dashboard's staff user, or reset its password and e-mail. The password is "
        "read from the environment variable named by --password-env, never from the command line; "
        "the e-mail is ECOMMERCE_STAFF_EMAIL unless --email gives one (none when neither does)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="staff")
        parser.add_argument("--email", default=None)
        parser.add_argument("--password-env", default="ECOMMERCE_STAFF_PASSWORD")

    def handle(self, *args, username, email, password_env, **options):
        password = os.environ.get(password_env, "")
        if len(password) < 12:
            raise CommandError(f"Set {password_env} to a password of at least 12 characters.")
        email = settings.ECOMMERCE_STAFF_EMAIL if email is None else email
        User = get_user_model()
        user, created = User._default_manager.get_or_create(
            username=username, defaults={"email": email, "is_staff": True, "is_superuser": True}
        )
        ready = user.check_password(password) and user.is_staff and user.is_superuser and user.email == email
        if created or not ready:
            user.is_staff = user.is_superuser = user.is_active = True
            user.email = email
            user.set_password(password)
            user.save()
        self.stdout.write(f"staff user {username}: {'created' if created else 'ready'}")
