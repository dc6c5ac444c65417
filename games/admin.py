# Admin registrations arrive with the game models.
