"""The public surface as a user meets it: value types and their input checks, examples, README, set-up."""
