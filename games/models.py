# Game, Seat, Move and the notification rows arrive with the game feature (see DESIGN.md).
